import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import type { Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { localDate } from '../../lib/calendar.js';
import { toInstant } from '../../lib/instant.js';
import type { Tenant } from '../../lib/tenant.js';
import { receiveForCheckout } from '../../money/index.js';
import type { InboundNotification } from '../../ports/provider-notifications.js';
import { getCustomerRow } from '../customers/customers.service.js';
import { lockOpenCheckout } from '../schedules/index.js';
import {
  countAskedOfSchedule,
  findObligationByCheckout,
  findObligationByCheckoutAnywhere,
} from '../schedules/obligations.service.js';
import { scheduleOutlook } from '../schedules/schedules.outlook.js';
import { type ObligationsTable, OPEN_OBLIGATION } from '../schedules/schedules.service.js';
import { getTrackRow } from '../tracks/tracks.service.js';
import { type BusinessCard, businessCard } from '../workspaces/workspaces.service.js';
import { liveProvider } from './adapters.service.js';
import {
  askProviderOfCheckout,
  CHECKOUT_PROVIDER,
  type CheckoutLink,
  type CheckoutReturn,
  startCheckout,
} from './checkout.start.js';
import { payLinkCheckoutPaid } from './pay-link-checkout.service.js';
import { type Handled, handledOf } from './providers.service.js';

export type { CheckoutLink, CheckoutReturn } from './checkout.start.js';

/**
 * A checkout page for a due obligation of a gatewayA_checkout schedule, for what it still owes (`startCheckout`):
 * the provider that serves the checkout rail, else the simulator's page in test mode. Null when this server
 * cannot get one (live mode without an adapter). Throws ProviderCallError when the provider did not answer: the
 * obligation waits for the next sweep.
 */
export function checkoutLinkFor(
  ctx: AppContext,
  tenant: Tenant,
  obligation: ObligationsTable,
): Promise<CheckoutLink | null> {
  return startCheckout(ctx, tenant, {
    reference: obligation.id,
    amount: obligation.amount - obligation.amount_paid,
    currency: obligation.currency,
    payer: async () => {
      const plan = obligation.track_id ? await getTrackRow(ctx.db, tenant, obligation.track_id) : undefined;
      return plan ? await getCustomerRow(ctx.db, tenant, plan.customer_id) : undefined;
    },
  });
}

/**
 * Money a provider reports for a checkout: recorded as all such money is, for the checkout's obligation first
 * (`receiveForCheckout`), or for the pay link whose page started it (`payLinkCheckoutPaid`). A checkout id this
 * workspace does not know is still money: unapplied.
 */
export async function checkoutPaid(
  trx: Trx,
  tenant: Tenant,
  checkoutId: string,
  paid: {
    provider: string;
    amount: number;
    currency: string;
    paidAt: string;
    reference: string | null;
    providerReference?: string | null;
  },
): Promise<Handled> {
  const found = await findObligationByCheckout(trx, tenant, checkoutId);
  if (!found) {
    const forPayLink = await payLinkCheckoutPaid(trx, tenant, checkoutId, paid);
    if (forPayLink) return forPayLink;
  }
  const obligation =
    found && (found.checkout_provider ?? CHECKOUT_PROVIDER) === paid.provider ? found : undefined;
  return handledOf(await receiveForCheckout(trx, tenant, checkoutId, obligation, paid));
}

/** `checkout.completed`: the provider's notification that a checkout was paid. */
export function checkoutCompleted(
  trx: Trx,
  tenant: Tenant,
  provider: string,
  notification: InboundNotification,
): Promise<Handled> {
  return checkoutPaid(trx, tenant, notification.reference, {
    provider,
    amount: notification.amount,
    currency: notification.currency,
    paidAt: toInstant(notification.occurred_at, 'occurred_at'),
    reference: `${provider}:${notification.id}`,
    providerReference: notification.provider_reference ?? null,
  });
}

/** Whether a checkout page can still take money: its obligation open, or paid, or no longer asked for. */
export type CheckoutState = 'open' | 'paid' | 'closed';

function stateOf(obligation: ObligationsTable): CheckoutState {
  if (OPEN_OBLIGATION.includes(obligation.status) && obligation.checkout_completed_at === null) return 'open';
  return obligation.status === 'paid' || obligation.checkout_completed_at !== null ? 'paid' : 'closed';
}

/** Where an obligation stands among its schedule's: the 2nd of 3, or the 5th of a schedule with no end. */
export interface Instalment {
  number: number;
  of: number | null;
}

export interface CheckoutView {
  business: BusinessCard;
  /** Who pays: the customer of the plan; null for a schedule with no plan. */
  customer: string | null;
  planTitle: string | null;
  instalment: Instalment | null;
  /** What the obligation asks in all, what is paid of it, and what is left (what the page takes). */
  asked: number;
  paid: number;
  amount: number;
  currency: string;
  dueDate: string;
  /** When it was paid in full, as a date in the business's zone; null while it is not. */
  paidOn: string | null;
  state: CheckoutState;
}

/**
 * Where the obligation stands among the ones its schedule asks (cancelled ones left out, so none for a cancelled
 * one), counting those later top-ups will add until its plan is covered; "of" unknown when there is no end.
 */
async function instalmentOf(ctx: AppContext, tenant: Tenant, obligation: ObligationsTable) {
  if (obligation.status === 'cancelled') return null;
  const outlook = await scheduleOutlook(ctx.db, tenant, obligation.schedule_id);
  if (!outlook) return null;
  const counted = (upTo: number | null) => countAskedOfSchedule(ctx.db, obligation.schedule_id, upTo);
  const number = await counted(obligation.sequence);
  const of = outlook.endless ? null : (await counted(null)) + outlook.ahead;
  // A payment that stands alone is no instalment.
  if (of === 1) return null;
  return { number, of };
}

/** The simulated checkout behind a test-mode checkout page (or any checkout, `anyMode`), and its tenant. */
async function find(ctx: AppContext, checkoutId: string, anyMode = false) {
  const obligation = await findObligationByCheckoutAnywhere(ctx.db, checkoutId);
  if (!obligation || (!anyMode && obligation.mode !== 'test')) return undefined;
  // A real provider's checkout is paid on its own page, not on this one.
  if (!anyMode && obligation.checkout_provider_reference !== null && obligation.checkout_provider !== null) {
    const tenant = await loadTenant(ctx.db, ctx.clock, {
      workspaceId: obligation.workspace_id,
      mode: 'test',
    });
    const live = await liveProvider(ctx, tenant, obligation.checkout_provider);
    if (live?.setting) return undefined;
  }
  const tenant = await loadTenant(ctx.db, ctx.clock, { workspaceId: obligation.workspace_id, mode: 'test' });
  const business = await businessCard(ctx.db, obligation.workspace_id);
  const plan = obligation.track_id ? await getTrackRow(ctx.db, tenant, obligation.track_id) : undefined;
  const customer = plan ? await getCustomerRow(ctx.db, tenant, plan.customer_id) : undefined;
  const paidAt = obligation.paid_at ?? obligation.checkout_completed_at;
  const view: CheckoutView = {
    business,
    customer: customer?.name ?? null,
    planTitle: plan?.title ?? null,
    instalment: await instalmentOf(ctx, tenant, obligation),
    asked: obligation.amount,
    paid: obligation.amount_paid,
    amount: obligation.amount - obligation.amount_paid,
    currency: obligation.currency,
    dueDate: obligation.due_date,
    paidOn: paidAt ? localDate(paidAt, business.timeZone) : null,
    state: stateOf(obligation),
  };
  return { obligation, tenant, view };
}

export async function showCheckout(ctx: AppContext, checkoutId: string): Promise<CheckoutView | undefined> {
  return (await find(ctx, checkoutId))?.view;
}

/**
 * The test-mode checkout page's pay button: as if the provider reported the checkout paid, for what its
 * obligation still owes. Conditional on the obligation still open (its row is locked first), so a second press
 * pays nothing; a checkout whose obligation is no longer asked for (its schedule cancelled) records nothing.
 */
export async function payCheckout(
  ctx: AppContext,
  checkoutId: string,
): Promise<{ state: CheckoutState; handled: Handled | null; view: CheckoutView } | undefined> {
  const found = await find(ctx, checkoutId);
  if (!found) return undefined;
  const { tenant, view } = found;
  const paid = await inTransaction(ctx, null, async (trx) => {
    const open = await lockOpenCheckout(trx, found.obligation.id);
    if (!open) {
      const now = await findObligationByCheckout(trx, tenant, checkoutId);
      return { state: now ? stateOf(now) : 'closed', handled: null };
    }
    const handled = await checkoutPaid(trx, tenant, checkoutId, {
      provider: open.checkout_provider ?? CHECKOUT_PROVIDER,
      amount: open.amount - open.amount_paid,
      currency: open.currency,
      paidAt: tenant.clock.now().toISOString(),
      reference: null,
    });
    return { state: 'paid' as const, handled };
  });
  return { ...paid, view };
}

/**
 * The page a provider's checkout sends the payer back to (`/checkout/<id>/return`): it asks the provider where
 * the payment stands and says so. Money the provider says was paid is recorded here too, under the provider's
 * reference of it, so that its webhook (lost, or late) and this page record it once between them.
 */
export async function returnFromCheckout(
  ctx: AppContext,
  checkoutId: string,
): Promise<{ view: CheckoutView; outcome: CheckoutReturn } | undefined> {
  const found = await find(ctx, checkoutId, true);
  if (!found) return undefined;
  const { obligation, tenant, view } = found;
  if (view.state === 'paid') return { view, outcome: 'paid' };
  const { outcome, recorded } = await askProviderOfCheckout(
    ctx,
    tenant,
    { provider: obligation.checkout_provider, providerReference: obligation.checkout_provider_reference },
    (trx, money) => checkoutPaid(trx, tenant, checkoutId, money),
  );
  if (!recorded) return { view, outcome };
  const now = await find(ctx, checkoutId, true);
  return { view: now?.view ?? view, outcome };
}
