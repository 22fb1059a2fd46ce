import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import type { Tenant } from '../../lib/tenant.js';
import { ProviderCallError } from '../../ports/live-provider.js';
import { payerEmailOf } from '../customers/customers.service.js';
import { RAIL_PROVIDER } from '../schedules/schedules.service.js';
import { liveProvider, railProvider } from './adapters.service.js';

/** The provider of checkout pages when the workspace named none for the rail (`provider set --rails checkout`). */
export const CHECKOUT_PROVIDER = RAIL_PROVIDER.gatewayA_checkout as string;

/** A checkout page: our id of it, where the payer goes, and the provider behind it. */
export interface CheckoutLink {
  id: string;
  url: string;
  provider: string;
  /** The provider's own reference of the checkout (a session, a transaction reference), when it has one. */
  providerReference: string | null;
}

/**
 * A checkout page for `amount`, asked outside any transaction from the provider that serves the checkout rail: a
 * real provider with the workspace's key (its hosted page, which sends the payer back to
 * `/checkout/<id>/return`), else the simulator's page on this server in test mode. `reference` is what the
 * simulator is asked for (an obligation, a pay link); `payer` is read only for a real provider, which wants an
 * e-mail. Null when this server cannot get one (live mode without an adapter). Throws ProviderCallError when the
 * provider did not answer.
 */
export async function startCheckout(
  ctx: AppContext,
  tenant: Tenant,
  request: {
    reference: string;
    amount: number;
    currency: string;
    payer: () => Promise<{ id: string; email?: string | null } | undefined>;
  },
): Promise<CheckoutLink | null> {
  const { amount, currency } = request;
  const provider = await railProvider(ctx.db, tenant, 'checkout', CHECKOUT_PROVIDER);
  const live = await liveProvider(ctx, tenant, provider);
  if (!live) {
    const link = await ctx.ports
      .provider(tenant.mode, provider)
      .checkoutLink({ reference: request.reference, amount, currency });
    return link && { ...link, provider, providerReference: null };
  }
  const payer = await request.payer();
  const id = `chk_${randomBytes(16).toString('base64url')}`;
  const made = await live.adapter.checkout({
    reference: id,
    amount,
    currency,
    payerEmail: payerEmailOf(payer ?? { id: request.reference }),
    returnUrl: `${ctx.config.publicUrl}/checkout/${id}/return`,
  });
  return { id, url: made.url, provider, providerReference: made.id };
}

/** What the payer sees back from a provider's checkout page: what the provider says of the payment. */
export type CheckoutReturn = 'paid' | 'processing' | 'not_paid' | 'unknown';

/** Money a provider says a checkout took, as it is recorded. */
export interface CheckoutMoney {
  provider: string;
  amount: number;
  currency: string;
  paidAt: string;
  reference: string;
  providerReference: string;
}

/**
 * Asks a real provider where a checkout's payment stands (the return page's question). Money it says was paid is
 * recorded through `record`, under the provider's reference of it, so that its webhook (lost, or late) and the
 * return page record it once between them. `recorded`: whether this call recorded it (the caller reads the page
 * again).
 */
export async function askProviderOfCheckout(
  ctx: AppContext,
  tenant: Tenant,
  checkout: { provider: string | null; providerReference: string | null },
  record: (trx: Trx, money: CheckoutMoney) => Promise<unknown>,
): Promise<{ outcome: CheckoutReturn; recorded: boolean }> {
  const live = checkout.provider ? await liveProvider(ctx, tenant, checkout.provider) : null;
  if (!live || !checkout.providerReference) return { outcome: 'unknown', recorded: false };
  const answer = await live.adapter.lookupCheckout(checkout.providerReference).catch((error: unknown) => {
    if (error instanceof ProviderCallError) return { status: 'unknown' as const };
    throw error;
  });
  if (answer.status === 'succeeded' && answer.amount !== undefined && answer.currency !== undefined) {
    const { amount, currency, providerReference } = answer;
    const provider = live.name;
    await inTransaction(ctx, tenant, (trx) =>
      record(trx, {
        provider,
        amount,
        currency,
        paidAt: tenant.clock.now().toISOString(),
        reference: `${provider}:${providerReference}`,
        providerReference,
      }),
    ).catch((error: unknown) => {
      // The webhook recorded it at the same moment, under the same reference.
      if (!isUniqueViolation(error)) throw error;
    });
    return { outcome: 'paid', recorded: true };
  }
  const outcome: CheckoutReturn =
    answer.status === 'succeeded'
      ? 'paid'
      : answer.status === 'processing'
        ? 'processing'
        : answer.status === 'failed'
          ? 'not_paid'
          : 'unknown';
  return { outcome, recorded: false };
}
