import type { DbOrTrx } from '../../db/schema.js';
import { localDate } from '../../lib/calendar.js';
import { toSafeInteger } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { ObligationAllocation } from '../schedules/schedules.table.js';
import { type AgeingBucket, ageingBucket, daysOverdue } from './reports.period.js';
import * as repo from './reports.repository.js';

/** A plan (or a schedule without one) with money overdue at the report's time. */
export interface OverdueFigures {
  trackId: string | null;
  scheduleId: string | null;
  currency: string;
  overdueAmount: number;
  oldestDueDate: string;
  daysOverdue: number;
}

/** An overdue account as reports show it: its figures, its customer and its plan's title. */
export interface OverdueAccount extends OverdueFigures {
  customerId: string | null;
  customerName: string | null;
  planTitle: string | null;
}

export interface OverdueBook {
  /** Worst first: largest overdue amount, then oldest due date. */
  accounts: OverdueFigures[];
  /** Per currency: the overdue total and its ageing buckets. */
  currencies: Map<string, { total: number; buckets: Record<AgeingBucket, number> }>;
}

interface Part {
  key: string;
  trackId: string | null;
  scheduleId: string | null;
  currency: string;
  amount: number;
  dueDate: string;
}

/** What an obligation had been paid at `at`, from its allocations (each kept with when it was made and undone). */
function paidAt(allocations: string, at: string): number {
  return (JSON.parse(allocations) as ObligationAllocation[]).reduce(
    (sum, a) => sum + (a.created_at <= at && (a.reversed_at === null || a.reversed_at > at) ? a.amount : 0),
    0,
  );
}

/**
 * The overdue book at `at`: each obligation past due and not fully paid at that time is an overdue part, aged
 * by its due date; a plan whose final due date had passed owes its whole balance of that time, the part beyond
 * its overdue obligations aged by the plan's due date. Accounts are worst first: largest overdue amount, then
 * oldest due date. `current` says `at` is now, so the stored figures are the figures of that time.
 */
export async function overdueBook(
  db: DbOrTrx,
  tenant: TenantRef,
  at: string,
  timeZone: string,
  current: boolean,
  withAccounts = true,
): Promise<OverdueBook> {
  const parts: Part[] = [];
  for (const o of await repo.overdueCandidates(db, tenant, at, !current)) {
    const paid = o.allocations === undefined ? o.amount_paid : paidAt(o.allocations, at);
    if (o.amount - paid <= 0) continue;
    parts.push({
      key: o.track_id ?? `schedule:${o.schedule_id}`,
      trackId: o.track_id,
      scheduleId: o.track_id ? null : o.schedule_id,
      currency: o.currency,
      amount: o.amount - paid,
      dueDate: o.due_date,
    });
  }
  const pastDue = await repo.plansPastDue(db, tenant, localDate(at, timeZone), current);
  const balances = new Map<string, number>(
    current
      ? pastDue.map((p) => [p.id, p.balance])
      : pastDue.length === 0
        ? []
        : (
            await repo.planBalancesAt(
              db,
              tenant,
              pastDue.map((p) => p.id),
              at,
            )
          ).map((b) => [b.track_id as string, toSafeInteger(b.amount)]),
  );
  const owedByObligations = new Map<string, number>();
  for (const part of parts)
    owedByObligations.set(part.key, (owedByObligations.get(part.key) ?? 0) + part.amount);
  for (const plan of pastDue) {
    const rest = (balances.get(plan.id) ?? 0) - (owedByObligations.get(plan.id) ?? 0);
    if (rest <= 0 || plan.due_date === null) continue;
    parts.push({
      key: plan.id,
      trackId: plan.id,
      scheduleId: null,
      currency: plan.currency,
      amount: rest,
      dueDate: plan.due_date,
    });
  }
  return summarise(parts, localDate(at, timeZone), withAccounts);
}

function summarise(parts: Part[], today: string, withAccounts: boolean): OverdueBook {
  const currencies: OverdueBook['currencies'] = new Map();
  const accounts = new Map<string, OverdueFigures>();
  for (const part of parts) {
    const days = Math.max(1, daysOverdue(part.dueDate, today));
    const book = currencies.get(part.currency) ?? {
      total: 0,
      buckets: { '1-30': 0, '31-60': 0, '61-90': 0, '91+': 0 },
    };
    book.total += part.amount;
    book.buckets[ageingBucket(days)] += part.amount;
    currencies.set(part.currency, book);
    if (!withAccounts) continue;
    const account = accounts.get(part.key) ?? {
      trackId: part.trackId,
      scheduleId: part.scheduleId,
      currency: part.currency,
      overdueAmount: 0,
      oldestDueDate: part.dueDate,
      daysOverdue: days,
    };
    account.overdueAmount += part.amount;
    if (part.dueDate < account.oldestDueDate) {
      account.oldestDueDate = part.dueDate;
      account.daysOverdue = days;
    }
    accounts.set(part.key, account);
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...accounts.values()].sort(
    (a, b) =>
      order(a.currency, b.currency) ||
      b.overdueAmount - a.overdueAmount ||
      order(a.oldestDueDate, b.oldestDueDate) ||
      order(String(a.trackId ?? a.scheduleId), String(b.trackId ?? b.scheduleId)),
  );
  return { accounts: sorted, currencies };
}

/** Accounts with their customer and plan title, for the accounts shown (a page, or an export's batch). */
export async function describeAccounts(
  db: DbOrTrx,
  tenant: TenantRef,
  accounts: readonly OverdueFigures[],
): Promise<OverdueAccount[]> {
  const trackIds = [...new Set(accounts.flatMap((a) => (a.trackId ? [a.trackId] : [])))];
  const plans = new Map(
    (trackIds.length ? await repo.plansByIds(db, tenant, trackIds) : []).map((p) => [p.id, p]),
  );
  const customerIds = [...new Set([...plans.values()].map((p) => p.customer_id))];
  const names = new Map(
    (customerIds.length ? await repo.customersByIds(db, tenant, customerIds) : []).map((c) => [c.id, c.name]),
  );
  return accounts.map((account) => {
    const plan = account.trackId ? plans.get(account.trackId) : undefined;
    return {
      customerId: plan?.customer_id ?? null,
      customerName: plan ? (names.get(plan.customer_id) ?? null) : null,
      trackId: account.trackId,
      planTitle: plan?.title ?? null,
      scheduleId: account.scheduleId,
      currency: account.currency,
      overdueAmount: account.overdueAmount,
      oldestDueDate: account.oldestDueDate,
      daysOverdue: account.daysOverdue,
    };
  });
}
