import type { Trx } from '../db/schema.js';
import type { Tenant } from '../lib/tenant.js';
import type { ObligationsTable } from '../modules/schedules/schedules.table.js';
import { type Destination, type Received, receiveProviderMoney } from './receive.js';

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
  paid: {
    amount: number;
    currency: string;
    paidAt: string;
    reference: string | null;
    provider?: string;
    providerReference?: string | null;
  },
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
      provider: paid.provider ?? null,
      providerReference: paid.providerReference ?? null,
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

/**
 * Money a provider reports for a pay link's checkout, in the caller's transaction: recorded on the link's plan as
 * all such money is (`receiveProviderMoney`): as far as the balance goes, paying its open obligations oldest
 * first, the excess as the customer's credit; wholly as credit when the plan was closed meanwhile.
 */
export function receiveForPayLink(
  trx: Trx,
  tenant: Tenant,
  link: { id: string; trackId: string; checkoutId: string },
  paid: {
    amount: number;
    currency: string;
    paidAt: string;
    reference: string | null;
    provider: string;
    providerReference: string | null;
  },
): Promise<Received> {
  return receiveProviderMoney(
    trx,
    tenant,
    {
      amount: paid.amount,
      currency: paid.currency,
      method: 'gateway_checkout',
      paidAt: paid.paidAt,
      reference: paid.reference,
      metadata: { checkoutId: link.checkoutId, payLinkId: link.id },
      provider: paid.provider,
      providerReference: paid.providerReference,
    },
    { trackId: link.trackId },
  );
}
