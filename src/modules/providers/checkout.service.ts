import { sql } from 'kysely';
import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { inTransaction } from '../../db/unit-of-work.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import type { Ports } from '../../ports/ports.js';
import { type Destination, type Received, receiveProviderMoney } from '../payments/payments.receive.js';
import { type ObligationsTable, OPEN_OBLIGATION, RAIL_PROVIDER } from '../schedules/schedules.table.js';
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

export interface CheckoutView {
  business: string;
  amount: number;
  currency: string;
  dueDate: string;
  state: CheckoutState;
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
  const workspace = await ctx.db
    .selectFrom('workspaces')
    .select('name')
    .where('id', '=', obligation.workspace_id)
    .executeTakeFirstOrThrow();
  const view: CheckoutView = {
    business: workspace.name,
    amount: obligation.amount - obligation.amount_paid,
    currency: obligation.currency,
    dueDate: obligation.due_date,
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
): Promise<{ state: CheckoutState; handled: Handled | null } | undefined> {
  const found = await find(ctx, checkoutId);
  if (!found) return undefined;
  const { tenant } = found;
  return inTransaction(ctx, async (trx) => {
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
    return { state: 'paid', handled };
  });
}
