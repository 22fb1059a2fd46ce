import type { AppContext } from '../../context.js';
import type { Tenant } from '../../lib/tenant.js';
import type { LiveChargeResult } from '../../ports/live-provider.js';
import type { ChargeResult } from '../../ports/payment-providers.js';
import { customerRow, payerEmailOf } from '../customers/customers.service.js';
import type { LiveProvider } from '../providers/adapters.service.js';
import * as repo from './attempts.repository.js';
import type { AttemptsTable } from './attempts.table.js';

const MINUTE_MS = 60_000;

/**
 * How long to wait before asking a provider again about a charge it has not settled: soon at first (an answer
 * lost on the wire), then less often (a bank debit takes days).
 */
function askAgainAfter(attempt: AttemptsTable, now: Date): number {
  const age = now.getTime() - Date.parse(attempt.attempted_at ?? now.toISOString());
  if (age < 30 * MINUTE_MS) return 2 * MINUTE_MS;
  if (age < 24 * 60 * MINUTE_MS) return 60 * MINUTE_MS;
  return 6 * 60 * MINUTE_MS;
}

/** A settled result as the attempt records it. */
function outcomeOf(result: Extract<LiveChargeResult, { status: 'succeeded' | 'failed' }>): ChargeResult {
  return result;
}

/** Keeps a charge in flight: its reference when the provider gave one, and when to ask about it again. */
async function keepInFlight(
  ctx: AppContext,
  tenant: Tenant,
  attempt: AttemptsTable,
  changes: { providerReference?: string; message?: string },
): Promise<boolean> {
  const now = tenant.clock.now();
  const kept = await repo.updateIn(ctx.db, attempt.id, ['processing'], {
    ...(changes.providerReference ? { provider_reference: changes.providerReference } : {}),
    ...(changes.message ? { failure_message: changes.message.slice(0, 500) } : {}),
    reconcile_at: new Date(now.getTime() + askAgainAfter(attempt, now)).toISOString(),
    updated_at: now.toISOString(),
  });
  return kept !== undefined;
}

/** Records a settled charge's outcome on the attempt (the attempts service's `recordOutcome`, in its own unit). */
export type SettleCharge = (attempt: AttemptsTable, result: ChargeResult) => Promise<void>;

/** What charges through a real provider need of the mandate. */
export interface MandateToCharge {
  payer_id: string;
  provider_reference: string | null;
  provider_mandate_id: string | null;
  customer_reference: string | null;
  payer_email: string | null;
}

async function record(
  ctx: AppContext,
  tenant: Tenant,
  attempt: AttemptsTable,
  result: LiveChargeResult,
  settle: SettleCharge,
) {
  if (result.status === 'processing')
    return keepInFlight(ctx, tenant, attempt, { providerReference: result.providerReference });
  if (result.status === 'unknown') {
    return keepInFlight(ctx, tenant, attempt, {
      message: `The provider's answer did not arrive (${result.message}); it is asked, never charged again.`,
    });
  }
  await settle(attempt, outcomeOf(result));
  return true;
}

/**
 * An attempt collected through a real provider. A charge the provider may already have (in flight: its answer
 * pending or lost) is asked about (`lookupCharge`), never made again; only a charge the provider has no trace
 * of is made, with the attempt id as its idempotency key. A success or failure is recorded at once; a bank debit
 * stays processing until the provider's webhook, or the next time it is asked.
 */
export async function chargeLive(
  ctx: AppContext,
  tenant: Tenant,
  attempt: AttemptsTable,
  mandate: MandateToCharge,
  live: LiveProvider,
  settle: SettleCharge,
  /** True when the attempt was already processing before this run: its charge may have reached the provider. */
  resumed: boolean,
): Promise<boolean> {
  const inFlight = attempt.reconcile_at !== null || attempt.provider_reference !== null;
  if (inFlight || resumed) {
    const found = await live.adapter.lookupCharge(attempt.id);
    if (found.status !== 'not_found') return record(ctx, tenant, attempt, found, settle);
    // Acknowledged before, yet not found: the provider's search lags; ask again later.
    if (attempt.provider_reference !== null) return keepInFlight(ctx, tenant, attempt, {});
  }
  const payer = await customerRow(ctx.db, tenant, mandate.payer_id);
  const result = await live.adapter.charge({
    attemptId: attempt.id,
    authorization: mandate.provider_reference ?? mandate.provider_mandate_id ?? '',
    customerReference: mandate.customer_reference,
    payerEmail: mandate.payer_email ?? payerEmailOf(payer),
    amount: attempt.amount,
    currency: attempt.currency,
  });
  return record(ctx, tenant, attempt, result, settle);
}
