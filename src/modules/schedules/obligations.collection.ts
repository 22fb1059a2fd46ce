import { sql } from 'kysely';
import type { Trx } from '../../db/schema.js';
import type { Tenant } from '../../lib/tenant.js';
import { OPEN_OBLIGATION } from './schedules.table.js';

// How an obligation is collected, apart from its money: claimed for its first attempt or its checkout, the
// checkout it was given, and its row locked while a checkout's payment is recorded.

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
  link: { id: string; url: string; provider: string; providerReference: string | null },
): Promise<void> {
  await trx
    .updateTable('obligations')
    .set({
      checkout_id: link.id,
      checkout_url: link.url,
      checkout_provider: link.provider,
      checkout_provider_reference: link.providerReference,
      updated_at: tenant.clock.now().toISOString(),
    })
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
