import type { Trx } from '../db/schema.js';
import type { Tenant } from '../lib/tenant.js';
import { appendEntries } from '../modules/ledger/ledger.service.js';
import { obligationToEvent } from '../modules/schedules/schedules.mapper.js';
import type { ObligationsTable } from '../modules/schedules/schedules.table.js';
import { recordEvent } from '../outbox/outbox.js';

/** Whose obligations were paid: a plan, or for a payment without one, its customer alone. */
export type PaidFor = {
  customer_id: string | null;
  id: string | null;
  balance: number | null;
};

/** The ledger entries (amount 0) and events of obligations just paid in full. */
export async function recordPaid(
  trx: Trx,
  tenant: Tenant,
  track: PaidFor,
  paid: readonly ObligationsTable[],
  refs: Record<string, string>,
): Promise<void> {
  if (paid.length === 0) return;
  await appendEntries(
    trx,
    tenant,
    paid.map((o) => ({
      type: 'obligation.paid' as const,
      trackId: track.id,
      customerId: track.customer_id,
      amount: 0,
      balanceAfter: track.balance,
      currency: o.currency,
      refs: { obligationId: o.id, scheduleId: o.schedule_id, ...refs },
    })),
  );
  for (const o of paid) await recordEvent(trx, tenant, 'obligation.paid', obligationToEvent(o));
}
