import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { localDate } from '../../lib/calendar.js';
import { formatMoney } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import { receiveForPayLink } from '../../money/index.js';
import { recordEvent } from '../../outbox/outbox.js';
import { ProviderCallError } from '../../ports/live-provider.js';
import { readAmount } from '../console/amount-input.js';
import { customerRow } from '../customers/customers.service.js';
import { receiptLinkOf } from '../payments/index.js';
import { findTrack } from '../tracks/index.js';
import { type BusinessCard, businessCard } from '../workspaces/workspaces.service.js';
import { liveProvider } from './adapters.service.js';
import { askProviderOfCheckout, type CheckoutReturn, startCheckout } from './checkout.start.js';
import { statusAt, toApi } from './pay-links.mapper.js';
import * as repo from './pay-links.repository.js';
import { PAY_LINK_TOKEN, tokenHash } from './pay-links.service.js';
import type { PayLinkCheckoutsTable, PayLinksTable } from './pay-links.table.js';
import { type Handled, handledOf, providerDisplayName } from './providers.service.js';

// The payer's side of a pay link: its page at /pay/<token>, the checkout its Pay button starts with the
// workspace's checkout provider, and the money that provider reports for that checkout.

/** Where a link stands for its payer: it takes a payment, or it was paid, expired, revoked, or nothing is owed. */
export type PayLinkState = 'open' | 'paid' | 'expired' | 'revoked' | 'settled';

/** What a pay link's page shows, read at one instant of the tenant's clock. */
export interface PayLinkView {
  business: BusinessCard;
  test: boolean;
  planTitle: string;
  /** The payer's first name: all the page shows of the customer. */
  payer: string;
  currency: string;
  /** What the page offers: the link's amount, at most what the plan still owes. */
  amount: number;
  /** What the payer may choose between; both `amount` when the amount is fixed. */
  min: number;
  max: number;
  editable: boolean;
  expiresAt: string;
  state: PayLinkState;
  /** What paid it and when (a date in the business's zone), with its receipt, once paid. */
  paid: { amount: number; on: string; receipt: { number: string; path: string } | null } | null;
}

const firstName = (name: string) => name.trim().split(/\s+/)[0] || name;

async function viewOf(db: DbOrTrx, tenant: Tenant, link: PayLinksTable): Promise<PayLinkView> {
  const now = tenant.clock.now().toISOString();
  const [business, plan, customer] = await Promise.all([
    businessCard(db, link.workspace_id),
    findTrack(db, tenant, link.track_id),
    customerRow(db, tenant, link.customer_id),
  ]);
  const owed = plan && plan.status === 'active' ? plan.balance : 0;
  const status = statusAt(link, now);
  const state: PayLinkState = status === 'active' ? (owed > 0 ? 'open' : 'settled') : status;
  const editable = link.min_amount < link.amount;
  const amount = Math.min(link.amount, owed);
  return {
    business,
    test: tenant.mode === 'test',
    planTitle: plan?.title ?? '',
    payer: firstName(customer.name),
    currency: link.currency,
    amount,
    min: Math.min(link.min_amount, owed),
    max: editable ? owed : amount,
    editable,
    expiresAt: link.expires_at,
    state,
    paid:
      link.paid_at && link.amount_paid !== null
        ? {
            amount: link.amount_paid,
            on: localDate(link.paid_at, business.timeZone),
            receipt: link.payment_id ? await receiptLinkOf(db, tenant, link.payment_id) : null,
          }
        : null,
  };
}

async function tenantOf(ctx: AppContext, row: { workspace_id: string; mode: PayLinksTable['mode'] }) {
  return loadTenant(ctx.db, ctx.clock, { workspaceId: row.workspace_id, mode: row.mode });
}

/** The link a page's token opens, its tenant and what its page shows; undefined for a token we never issued. */
async function open(ctx: AppContext, token: string) {
  const link = PAY_LINK_TOKEN.test(token) ? await repo.findByTokenHash(ctx.db, tokenHash(token)) : undefined;
  if (!link) return undefined;
  const tenant = await tenantOf(ctx, link);
  return { link, tenant, view: await viewOf(ctx.db, tenant, link) };
}

export async function showPayLink(ctx: AppContext, token: string): Promise<PayLinkView | undefined> {
  return (await open(ctx, token))?.view;
}

/** What pressing Pay came to: off to the provider's page, or the page again and why. */
export type PayStart =
  /** The checkout page, of `provider` (display name), for `amount`. */
  | { done: true; url: string; provider: string; amount: number; view: PayLinkView }
  | { done: false; view: PayLinkView; why: 'closed' }
  | { done: false; view: PayLinkView; why: 'amount'; error: string; typed: string }
  | { done: false; view: PayLinkView; why: 'unavailable'; error: string };

const money = (view: PayLinkView, amount: number) => formatMoney(amount, view.currency);

/** The amount the payer chose, read and held to the link's bounds; the words to show when it is not. */
function chosenAmount(
  view: PayLinkView,
  typed: string,
): { ok: true; amount: number } | { ok: false; error: string } {
  if (!view.editable) return { ok: true, amount: view.amount };
  const read = readAmount(typed, view.currency);
  const bounds = `from ${money(view, view.min)} to ${money(view, view.max)}`;
  if (!read.ok) return { ok: false, error: `${read.error} This link takes any amount ${bounds}.` };
  if (read.minor < view.min || read.minor > view.max) {
    const side = read.minor < view.min ? 'less than the least' : 'more than the most';
    return {
      ok: false,
      error: `${money(view, read.minor)} is ${side} this link takes: enter an amount ${bounds}.`,
    };
  }
  return { ok: true, amount: read.minor };
}

/**
 * The page's Pay button: the amount (the one fixed, or the payer's within the link's bounds) is asked of the
 * workspace's checkout provider as a checkout of its own, kept by its id, and the payer is sent to its page.
 * Nothing is recorded until the provider reports the checkout paid. Undefined for a token we never issued.
 */
export async function startPayment(
  ctx: AppContext,
  token: string,
  typed: string | undefined,
): Promise<PayStart | undefined> {
  const found = await open(ctx, token);
  if (!found) return undefined;
  const { link, tenant, view } = found;
  if (view.state !== 'open') return { done: false, view, why: 'closed' };
  const chosen = chosenAmount(view, typed ?? '');
  if (!chosen.ok) return { done: false, view, why: 'amount', error: chosen.error, typed: typed ?? '' };
  let checkout: Awaited<ReturnType<typeof startCheckout>>;
  try {
    checkout = await startCheckout(ctx, tenant, {
      reference: link.id,
      amount: chosen.amount,
      currency: link.currency,
      payer: () => customerRow(ctx.db, tenant, link.customer_id),
    });
  } catch (error) {
    if (!(error instanceof ProviderCallError)) throw error;
    return { done: false, view, why: 'unavailable', error: 'The payment provider did not answer.' };
  }
  if (!checkout) {
    return { done: false, view, why: 'unavailable', error: 'Paying online is not set up for this business.' };
  }
  const made = checkout;
  const kept = await inTransaction(ctx, null, async (trx) => {
    const now = tenant.clock.now().toISOString();
    const current = await repo.lock(trx, link.id);
    if (!current || statusAt(current, now) !== 'active') return false;
    await repo.insertCheckout(trx, {
      checkout_id: made.id,
      pay_link_id: link.id,
      workspace_id: link.workspace_id,
      mode: link.mode,
      amount: chosen.amount,
      currency: link.currency,
      provider: made.provider,
      provider_reference: made.providerReference,
      created_at: now,
      completed_at: null,
      payment_id: null,
    });
    return true;
  });
  if (!kept) {
    const now = (await repo.findById(ctx.db, tenant, link.id)) ?? link;
    return { done: false, view: await viewOf(ctx.db, tenant, now), why: 'closed' };
  }
  return {
    done: true,
    url: made.url,
    provider: providerDisplayName(made.provider),
    amount: chosen.amount,
    view,
  };
}

/**
 * Money a provider reports for a pay link's checkout (`checkout.completed`, the return page's lookup, the test
 * simulator's button), in the caller's transaction; null when the checkout is no pay link's of this tenant and
 * provider. The link is locked first, so that reports of one checkout come one at a time: the first records the
 * money on the link's plan through the money layer (allocated as any payment; the excess is credit) and makes
 * the link paid, if it still is active; any later one records nothing (`already_recorded`). A provider's money
 * is recorded even when the link was revoked or paid by another checkout meanwhile: it was paid. The simulator
 * (`simulated`) takes nothing from a link that is no longer active, nor for a plan that owes nothing: it stands
 * for a payer still on the page, which would say so.
 */
export async function payLinkCheckoutPaid(
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
  simulated = false,
): Promise<Handled | null> {
  const found = await repo.findCheckout(trx, checkoutId);
  if (!found || found.workspace_id !== tenant.workspaceId || found.mode !== tenant.mode) return null;
  if (found.provider !== paid.provider) return null;
  const link = await repo.lock(trx, found.pay_link_id);
  const checkout = await repo.findCheckout(trx, checkoutId);
  if (!link || !checkout) return null;
  if (checkout.completed_at !== null) {
    return { outcome: 'already_recorded', paymentId: checkout.payment_id, reason: null };
  }
  const now = tenant.clock.now().toISOString();
  if (simulated) {
    if (statusAt(link, now) !== 'active') {
      return { outcome: 'refused', paymentId: null, reason: `the pay link is ${statusAt(link, now)}` };
    }
    const plan = await findTrack(trx, tenant, link.track_id);
    if (plan?.status !== 'active' || plan.balance === 0) {
      return { outcome: 'refused', paymentId: null, reason: 'nothing is owed on the plan' };
    }
  }
  const providerReference = paid.providerReference ?? null;
  const received = await receiveForPayLink(
    trx,
    tenant,
    { id: link.id, trackId: link.track_id, checkoutId },
    { ...paid, providerReference },
  );
  const paymentId = received.payment.id;
  await repo.completeCheckout(trx, checkoutId, now, paymentId);
  if (link.status === 'active') {
    const paidLink = await repo.markPaid(trx, link.id, {
      paid_at: paid.paidAt,
      payment_id: paymentId,
      amount_paid: paid.amount,
      checkout_id: checkoutId,
      checkout_provider: checkout.provider,
      checkout_provider_reference: providerReference ?? checkout.provider_reference,
    });
    if (paidLink) {
      await recordEvent(trx, tenant, 'pay_link.paid', toApi(paidLink, now), {
        status: statusAt(link, now),
        paidAt: null,
        amountPaid: null,
        paymentId: null,
      });
    }
  }
  return handledOf(received);
}

/** Where a pay link's checkout stands on the simulator's page: open, paid by it, or closed with its link. */
export type PayLinkCheckoutState = 'open' | 'paid' | 'closed';

export interface PayLinkCheckoutView extends PayLinkView {
  /** What this checkout takes: the amount the payer chose. */
  checkoutAmount: number;
  checkoutState: PayLinkCheckoutState;
}

function checkoutViewOf(view: PayLinkView, checkout: PayLinkCheckoutsTable): PayLinkCheckoutView {
  const checkoutState: PayLinkCheckoutState =
    checkout.completed_at !== null ? 'paid' : view.state === 'open' ? 'open' : 'closed';
  return { ...view, checkoutAmount: checkout.amount, checkoutState };
}

/**
 * A pay link's checkout and what its page shows: in test mode on the simulator's page (not for a real provider's
 * checkout, paid on the provider's page), in any mode for the return page (`anyMode`).
 */
async function findCheckout(ctx: AppContext, checkoutId: string, anyMode = false) {
  const checkout = await repo.findCheckout(ctx.db, checkoutId);
  if (!checkout || (!anyMode && checkout.mode !== 'test')) return undefined;
  const tenant = await tenantOf(ctx, checkout);
  if (!anyMode && checkout.provider_reference !== null) {
    const live = await liveProvider(ctx, tenant, checkout.provider);
    if (live?.setting) return undefined;
  }
  const link = await repo.findById(ctx.db, tenant, checkout.pay_link_id);
  if (!link) return undefined;
  const view = checkoutViewOf(await viewOf(ctx.db, tenant, link), checkout);
  return { checkout, tenant, view };
}

export async function showPayLinkCheckout(
  ctx: AppContext,
  checkoutId: string,
): Promise<PayLinkCheckoutView | undefined> {
  return (await findCheckout(ctx, checkoutId))?.view;
}

/**
 * The test simulator's pay button on a pay link's checkout: as if the provider reported it paid, for the amount
 * the payer chose. Pressed any number of times, at once or not, it records one payment; it records nothing for a
 * link revoked, expired or paid meanwhile. `handled` is null when this press recorded nothing.
 */
export async function payPayLinkCheckout(
  ctx: AppContext,
  checkoutId: string,
): Promise<{ handled: Handled | null; view: PayLinkCheckoutView } | undefined> {
  const found = await findCheckout(ctx, checkoutId);
  if (!found) return undefined;
  const { checkout, tenant } = found;
  if (found.view.checkoutState !== 'open') return { handled: null, view: found.view };
  const handled = await inTransaction(ctx, null, (trx) =>
    payLinkCheckoutPaid(
      trx,
      tenant,
      checkoutId,
      {
        provider: checkout.provider,
        amount: checkout.amount,
        currency: checkout.currency,
        paidAt: tenant.clock.now().toISOString(),
        reference: null,
      },
      true,
    ),
  );
  const now = (await findCheckout(ctx, checkoutId))?.view ?? found.view;
  const recorded = handled && (handled.outcome === 'recorded' || handled.outcome === 'unapplied');
  return { handled: recorded ? handled : null, view: now };
}

/**
 * The return page of a pay link's checkout on a real provider (`/checkout/<id>/return`): the provider is asked
 * where the payment stands, and money it says was paid is recorded here too, under the provider's reference of
 * it, so that its webhook and this page record it once between them.
 */
export async function returnFromPayLinkCheckout(
  ctx: AppContext,
  checkoutId: string,
): Promise<{ view: PayLinkCheckoutView; outcome: CheckoutReturn } | undefined> {
  const found = await findCheckout(ctx, checkoutId, true);
  if (!found) return undefined;
  const { checkout, tenant, view } = found;
  if (view.checkoutState === 'paid') return { view, outcome: 'paid' };
  const { outcome, recorded } = await askProviderOfCheckout(
    ctx,
    tenant,
    { provider: checkout.provider, providerReference: checkout.provider_reference },
    (trx, money) => payLinkCheckoutPaid(trx, tenant, checkoutId, money),
  );
  if (!recorded) return { view, outcome };
  const now = await findCheckout(ctx, checkoutId, true);
  return { view: now?.view ?? view, outcome };
}
