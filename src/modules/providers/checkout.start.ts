import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Tenant } from '../../lib/tenant.js';
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
