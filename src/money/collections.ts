import { sql } from 'kysely';
import type { Trx } from '../db/schema.js';
import type { Tenant } from '../lib/tenant.js';
import { type ObligationsTable, OPEN_OBLIGATION } from '../modules/schedules/schedules.table.js';
import { type Destination, type Received, receiveProviderMoney } from './receive.js';

/**
 * An obligation whose time to collect has come, claimed for its first attempt or its checkout (`collect_at` is
 * cleared), in the caller's transaction; undefined when another claimed it first or it is no longer open.
 */
export function claimCollection(trx: Trx, obligationId: string) {
  return trx
    .updateTable('obligations')
    .set({ collect_at: null })
    .where('id', '=', obligationId)
    .where('collect_at', 'is not', null)
    .where('status', 'in', OPEN_OBLIGATION)
    .returningAll()
    .executeTakeFirst();
}

/** Keeps an obligation's checkout, in the caller's transaction. */
export async function saveCheckout(
  trx: Trx,
  tenant: Tenant,
  obligationId: string,
  link: { id: string; url: string },
): Promise<void> {
  await trx
    .updateTable('obligations')
    .set({ checkout_id: link.id, checkout_url: link.url, updated_at: tenant.clock.now().toISOString() })
    .where('id', '=', obligationId)
    .execute();
}

/**
 * The obligation behind a checkout, locked for the rest of the transaction (a write of nothing) while it is
 * open and its checkout not done; undefined otherwise.
 */
export function lockOpenCheckout(trx: Trx, obligationId: string) {
  return trx
    .updateTable('obligations')
    .set({ updated_at: sql`updated_at` })
    .where('id', '=', obligationId)
    .where('status', 'in', OPEN_OBLIGATION)
    .where('checkout_completed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Money a provider reports for a checkout, in the caller's transaction: recorded as all such money is
 * (`receiveProviderMoney`), for the checkout's obligation first (undefined: a checkout this workspace does not
 * know, so the money is unapplied). The checkout is done only once its obligation is paid in full; a part
 * payment leaves it usable for the rest.
 */
export async function receiveForCheckout(
  trx: Trx,
  tenant: Tenant,
  checkoutId: string,
  obligation: ObligationsTable | undefined,
  paid: { amount: number; currency: string; paidAt: string; reference: string | null },
): Promise<Received> {
  const destination: Destination = !obligation
    ? null
    : obligation.track_id
      ? { trackId: obligation.track_id, obligationId: obligation.id }
      : { scheduleId: obligation.schedule_id, obligationId: obligation.id, customerId: null };
  const received = await receiveProviderMoney(
    trx,
    tenant,
    {
      amount: paid.amount,
      currency: paid.currency,
      method: 'gateway_checkout',
      paidAt: paid.paidAt,
      reference: paid.reference,
      metadata: { checkoutId },
    },
    destination,
  );
  if (obligation) {
    await trx
      .updateTable('obligations')
      .set({ checkout_completed_at: tenant.clock.now().toISOString() })
      .where('id', '=', obligation.id)
      .where('status', '=', 'paid')
      .where('checkout_completed_at', 'is', null)
      .execute();
  }
  return received;
}
