import { sql } from 'kysely';
import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { localDate } from '../../lib/calendar.js';
import { toSafeInteger } from '../../lib/money.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import type { Ports } from '../../ports/ports.js';
import { getCustomerRow } from '../customers/customers.service.js';
import { type Destination, type Received, receiveProviderMoney } from '../payments/payments.receive.js';
import { scheduleOutlook } from '../schedules/schedules.outlook.js';
import { type ObligationsTable, OPEN_OBLIGATION, RAIL_PROVIDER } from '../schedules/schedules.table.js';
import { getTrackRow } from '../tracks/tracks.service.js';
import { type BusinessCard, businessCard } from '../workspaces/workspaces.service.js';
import type { NotificationOutcome } from './providers.table.js';

/** What became of money reported for a checkout, a transfer or a charge. */
export interface Handled {
  outcome: NotificationOutcome;
  paymentId: string | null;
  reason: string | null;
}

const CHECKOUT_PROVIDER = RAIL_PROVIDER.gatewayA_checkout as string;

/**
 * A checkout page for a due obligation of a gatewayA_checkout schedule, from the provider (in test mode the
 * simulator's page on this server), asked outside any transaction with the obligation id as its reference.
 * Null when this server has no live adapter for it.
 */
export function checkoutLinkFor(ports: Ports, tenant: Tenant, obligation: ObligationsTable) {
  return ports.provider(tenant.mode, CHECKOUT_PROVIDER).checkoutLink({
    reference: obligation.id,
    amount: obligation.amount - obligation.amount_paid,
    currency: obligation.currency,
  });
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

function findByCheckout(db: DbOrTrx, tenant: TenantRef, checkoutId: string) {
  return db
    .selectFrom('obligations')
    .selectAll()
    .where(inTenant(tenant))
    .where('checkout_id', '=', checkoutId)
    .executeTakeFirst();
}

/** What became of money a provider reported, as a notification's receipt says it. */
export function handledOf(received: Received): Handled {
  const { payment, credit } = received;
  if (!received.recorded) return { outcome: 'already_recorded', paymentId: payment.id, reason: null };
  if (payment.unapplied) {
    return { outcome: 'unapplied', paymentId: payment.id, reason: payment.unappliedReason };
  }
  return {
    outcome: 'recorded',
    paymentId: payment.id,
    reason: credit
      ? `overpayment: ${credit.amount} more than was owed is the customer's credit, payment ${credit.id}`
      : null,
  };
}

/**
 * Money a provider reports for a checkout: recorded as all such money is (`receiveProviderMoney`), for the
 * checkout's obligation first. The checkout is done only once its obligation is paid in full; a part payment
 * leaves it usable for the rest. A checkout id this workspace does not know is still money: unapplied.
 */
export async function checkoutPaid(
  trx: Trx,
  tenant: Tenant,
  checkoutId: string,
  paid: { provider: string; amount: number; currency: string; paidAt: string; reference: string | null },
): Promise<Handled> {
  const obligation =
    paid.provider === CHECKOUT_PROVIDER ? await findByCheckout(trx, tenant, checkoutId) : undefined;
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
  return handledOf(received);
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
  const counted = (upTo: number | null) => {
    let q = ctx.db
      .selectFrom('obligations')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('schedule_id', '=', obligation.schedule_id)
      .where('status', '!=', 'cancelled');
    if (upTo !== null) q = q.where('sequence', '<=', upTo);
    return q.executeTakeFirstOrThrow().then((row) => toSafeInteger(row.n, 'obligations'));
  };
  const number = await counted(obligation.sequence);
  const of = outlook.endless ? null : (await counted(null)) + outlook.ahead;
  // A payment that stands alone is no instalment.
  if (of === 1) return null;
  return { number, of };
}

/** The simulated checkout behind a test-mode checkout page, and its tenant. */
async function find(ctx: AppContext, checkoutId: string) {
  const obligation = await ctx.db
    .selectFrom('obligations')
    .selectAll()
    .where('checkout_id', '=', checkoutId)
    .executeTakeFirst();
  if (obligation?.mode !== 'test') return undefined;
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
  const paid = await inTransaction(ctx, async (trx) => {
    const open = await trx
      .updateTable('obligations')
      .set({ updated_at: sql`updated_at` })
      .where('id', '=', found.obligation.id)
      .where('status', 'in', OPEN_OBLIGATION)
      .where('checkout_completed_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (!open) {
      const now = await findByCheckout(trx, tenant, checkoutId);
      return { state: now ? stateOf(now) : 'closed', handled: null };
    }
    const handled = await checkoutPaid(trx, tenant, checkoutId, {
      provider: CHECKOUT_PROVIDER,
      amount: open.amount - open.amount_paid,
      currency: open.currency,
      paidAt: tenant.clock.now().toISOString(),
      reference: null,
    });
    return { state: 'paid' as const, handled };
  });
  return { ...paid, view };
}
