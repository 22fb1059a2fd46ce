import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { inTransaction } from '../../db/unit-of-work.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Ports } from '../../ports/ports.js';
import { applyPayment } from '../payments/payments.service.js';
import { type ObligationsTable, OPEN_OBLIGATION, RAIL_PROVIDER } from '../schedules/schedules.table.js';
import type { NotificationOutcome } from './providers.table.js';

/** What became of money reported for a checkout or a transfer. */
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

function findByCheckout(db: DbOrTrx, checkoutId: string) {
  return db.selectFrom('obligations').selectAll().where('checkout_id', '=', checkoutId).executeTakeFirst();
}

/**
 * A checkout paid: the payment (what it still owed, or the amount the provider reports) on the obligation's plan,
 * through the money core, once: the checkout is marked completed in the same transaction.
 */
export async function completeCheckout(
  trx: Trx,
  tenant: Tenant,
  checkoutId: string,
  paid: { provider: string; amount?: number; paidAt: string; reference: string },
): Promise<Handled> {
  if (paid.provider !== CHECKOUT_PROVIDER) return { outcome: 'unmatched', paymentId: null, reason: null };
  const completed = await trx
    .updateTable('obligations')
    .set({ checkout_completed_at: tenant.clock.now().toISOString() })
    .where(inTenant(tenant))
    .where('checkout_id', '=', checkoutId)
    .where('checkout_completed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!completed) {
    const known = await trx
      .selectFrom('obligations')
      .select('id')
      .where(inTenant(tenant))
      .where('checkout_id', '=', checkoutId)
      .executeTakeFirst();
    return { outcome: known ? 'already_recorded' : 'unmatched', paymentId: null, reason: null };
  }
  const amount = paid.amount ?? completed.amount - completed.amount_paid;
  // Refused money leaves the checkout open: it was not paid.
  const refused = async (reason: string): Promise<Handled> => {
    await trx
      .updateTable('obligations')
      .set({ checkout_completed_at: null })
      .where('id', '=', completed.id)
      .execute();
    return { outcome: 'refused', paymentId: null, reason };
  };
  if (!completed.track_id || amount <= 0) return refused('nothing is owed on it');
  const payment = await applyPayment(trx, tenant, {
    trackId: completed.track_id,
    amount,
    method: 'gateway_checkout',
    paidAt: paid.paidAt,
    reference: paid.reference,
    source: 'provider',
    metadata: { checkoutId },
  });
  if (!payment.ok) return refused(payment.refusal.message);
  return { outcome: 'recorded', paymentId: payment.payment.id, reason: null };
}

export interface CheckoutView {
  business: string;
  amount: number;
  currency: string;
  dueDate: string;
  paid: boolean;
}

/** The simulated checkout behind a test-mode checkout page, and its tenant. */
async function find(ctx: AppContext, checkoutId: string) {
  const obligation = await findByCheckout(ctx.db, checkoutId);
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
    paid: obligation.checkout_completed_at !== null || !OPEN_OBLIGATION.includes(obligation.status),
  };
  return { obligation, tenant, view };
}

export async function showCheckout(ctx: AppContext, checkoutId: string): Promise<CheckoutView | undefined> {
  return (await find(ctx, checkoutId))?.view;
}

/** The test-mode checkout page's pay button: as if the provider reported the checkout completed. */
export async function payCheckout(ctx: AppContext, checkoutId: string): Promise<Handled | undefined> {
  const found = await find(ctx, checkoutId);
  if (!found) return undefined;
  return inTransaction(ctx, (trx) =>
    completeCheckout(trx, found.tenant, checkoutId, {
      provider: CHECKOUT_PROVIDER,
      paidAt: found.tenant.clock.now().toISOString(),
      reference: `${CHECKOUT_PROVIDER}:${checkoutId}`,
    }),
  );
}
