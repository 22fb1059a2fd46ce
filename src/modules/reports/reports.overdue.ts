import type { DbOrTrx } from '../../db/schema.js';
import { addDays, localDate } from '../../lib/calendar.js';
import { addExact, toSafeInteger } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { ObligationAllocation } from '../schedules/index.js';
import { accountKey, coveredByAccount } from './reports.covered.js';
import { type AgeingBucket, ageingBucket, daysOverdue } from './reports.period.js';
import * as repo from './reports.repository.js';
import { owedByDueDate } from './rollups.reads.js';

/** A plan (or a schedule without one) with money overdue at the report's time. */
export interface OverdueFigures {
  trackId: string | null;
  /** The schedule of its oldest overdue obligation (the earliest due date, then the lowest schedule id); null when only the plan's dueDate has passed. */
  scheduleId: string | null;
  currency: string;
  overdueAmount: number;
  oldestDueDate: string;
  daysOverdue: number;
  /** What of `overdueAmount` an open promise to pay covers (of what no open dispute covers). */
  promised: number;
  /** What of `overdueAmount` an open dispute covers. */
  disputed: number;
}

/** An overdue account as reports show it: its figures, its customer (with how to reach them) and its plan's title. */
export interface OverdueAccount extends OverdueFigures {
  customerId: string | null;
  customerName: string | null;
  phone: string | null;
  email: string | null;
  planTitle: string | null;
}

export interface OverdueBook {
  /** Worst first: largest overdue amount, then oldest due date. */
  accounts: OverdueFigures[];
  /** Per currency: the overdue total and its ageing buckets. */
  currencies: Map<
    string,
    { total: number; buckets: Record<AgeingBucket, number>; promised: number; disputed: number }
  >;
}

/** Money overdue in one account (plan, or schedule without one) since `dueDate` (its oldest due date). */
interface Part {
  key: string;
  trackId: string | null;
  /** The schedule of the obligations it comes from; null for the part of a plan past its own dueDate. */
  scheduleId: string | null;
  currency: string;
  amount: number;
  dueDate: string;
}

/** Money overdue in one currency since one due date: what the ageing buckets add up. */
interface Aged {
  currency: string;
  amount: number;
  dueDate: string;
}

/** What an obligation had been paid at `at`, from its allocations (each kept with when it was made and undone). */
function paidAt(allocations: string, at: string): number {
  return (JSON.parse(allocations) as ObligationAllocation[]).reduce(
    (sum, a) =>
      addExact(sum, a.created_at <= at && (a.reversed_at === null || a.reversed_at > at) ? a.amount : 0),
    0,
  );
}

/** Now: the stored figures, added up by the database per account and per due date. */
async function currentParts(
  db: DbOrTrx,
  tenant: TenantRef,
  at: string,
  today: string,
  withAccounts: boolean,
) {
  const accounts: Part[] = [];
  if (withAccounts) {
    for (const row of await repo.overdueByAccount(db, tenant, at)) {
      const amount = toSafeInteger(row.owed);
      if (amount <= 0) continue;
      accounts.push({
        key: accountKey(row.track_id, row.schedule_id),
        trackId: row.track_id,
        scheduleId: row.schedule_id,
        currency: row.currency,
        amount,
        dueDate: row.oldest,
      });
    }
  }
  // An obligation falls overdue at the start of the day after its due date in its schedule's zone, and zones
  // differ by 26 hours at most: those due three days or more before today are overdue whatever their zone, and
  // their figures come from the rollup. Those of the last days are read as they are.
  const recent = addDays(today, -2);
  const aged = [
    ...(await owedByDueDate(db, tenant, { to: recent })).map((row) => ({
      currency: row.currency,
      amount: toSafeInteger(row.amount),
      dueDate: row.due_date,
    })),
    ...(await repo.overdueByDueDate(db, tenant, at, recent, today)).map((row) => ({
      currency: row.currency,
      amount: toSafeInteger(row.owed),
      dueDate: row.due_date,
    })),
  ].filter((row) => row.amount !== 0);
  return { accounts, aged };
}

/** At an earlier time: each obligation as it was then, from its allocations. */
async function earlierParts(db: DbOrTrx, tenant: TenantRef, at: string) {
  const parts: Part[] = [];
  for (const o of await repo.overdueCandidates(db, tenant, at)) {
    const owed = o.amount - paidAt(o.allocations, at);
    if (owed <= 0) continue;
    parts.push({
      key: accountKey(o.track_id, o.schedule_id),
      trackId: o.track_id,
      scheduleId: o.schedule_id,
      currency: o.currency,
      amount: owed,
      dueDate: o.due_date,
    });
  }
  return { accounts: parts, aged: [...parts] as Aged[] };
}

/**
 * The overdue book at `at`: each obligation past due and not fully paid at that time is overdue for what it
 * still owes, aged by its due date; a plan whose final due date had passed owes its whole balance of that time,
 * the part beyond its overdue obligations aged by the plan's due date. Accounts are worst first: largest overdue
 * amount, then oldest due date. `current` says `at` is now, so the stored figures are the figures of that time.
 */
export async function overdueBook(
  db: DbOrTrx,
  tenant: TenantRef,
  at: string,
  timeZone: string,
  current: boolean,
  withAccounts = true,
): Promise<OverdueBook> {
  const today = localDate(at, timeZone);
  const { accounts, aged } = current
    ? await currentParts(db, tenant, at, today, withAccounts)
    : await earlierParts(db, tenant, at);
  const pastDue = (await repo.plansPastDue(db, tenant, today, current)).filter((p) => p.due_date !== null);
  if (pastDue.length > 0) {
    const ids = pastDue.map((p) => p.id);
    const balances = new Map<string, number>(
      current
        ? pastDue.map((p) => [p.id, p.balance])
        : (await repo.planBalancesAt(db, tenant, ids, at)).map((b) => [
            b.track_id as string,
            toSafeInteger(b.amount),
          ]),
    );
    const owedByObligations = new Map<string, number>();
    if (current) {
      for (const row of await repo.overdueOfPlans(db, tenant, ids, at)) {
        const id = row.track_id as string;
        owedByObligations.set(id, addExact(owedByObligations.get(id) ?? 0, toSafeInteger(row.owed)));
      }
    } else {
      for (const part of accounts)
        owedByObligations.set(part.key, addExact(owedByObligations.get(part.key) ?? 0, part.amount));
    }
    for (const plan of pastDue) {
      const rest = addExact(balances.get(plan.id) ?? 0, -Math.max(0, owedByObligations.get(plan.id) ?? 0));
      if (rest <= 0) continue;
      const part = {
        key: plan.id,
        trackId: plan.id,
        scheduleId: null,
        currency: plan.currency,
        amount: rest,
        dueDate: plan.due_date as string,
      };
      accounts.push(part);
      aged.push(part);
    }
  }
  const book = summarise(withAccounts ? accounts : [], aged, today);
  if (withAccounts) await addCovered(db, tenant, at, book);
  return book;
}

/** The promised and disputed parts of each account's overdue amount, and their totals per currency. */
async function addCovered(db: DbOrTrx, tenant: TenantRef, at: string, book: OverdueBook) {
  const keyOf = (a: OverdueFigures) => accountKey(a.trackId, a.scheduleId ?? '');
  const covered = await coveredByAccount(
    db,
    tenant,
    at,
    new Map(book.accounts.map((a) => [keyOf(a), a.overdueAmount])),
    (allocations) => paidAt(allocations, at),
  );
  for (const account of book.accounts) {
    const found = covered.get(keyOf(account));
    if (!found) continue;
    account.promised = found.promised;
    account.disputed = found.disputed;
    const figures = book.currencies.get(account.currency);
    if (!figures) continue;
    figures.promised = addExact(figures.promised, found.promised);
    figures.disputed = addExact(figures.disputed, found.disputed);
  }
}

function summarise(parts: readonly Part[], aged: readonly Aged[], today: string): OverdueBook {
  const currencies: OverdueBook['currencies'] = new Map();
  for (const part of aged) {
    const book = currencies.get(part.currency) ?? {
      total: 0,
      buckets: { '1-30': 0, '31-60': 0, '61-90': 0, '91+': 0 },
      promised: 0,
      disputed: 0,
    };
    book.total = addExact(book.total, part.amount);
    const bucket = ageingBucket(Math.max(1, daysOverdue(part.dueDate, today)));
    book.buckets[bucket] = addExact(book.buckets[bucket], part.amount);
    currencies.set(part.currency, book);
  }
  const accounts = new Map<string, OverdueFigures>();
  /** Per account, the due date of the oldest overdue obligation whose schedule it names. */
  const scheduleDue = new Map<string, string>();
  for (const part of parts) {
    const days = Math.max(1, daysOverdue(part.dueDate, today));
    const account = accounts.get(part.key) ?? {
      trackId: part.trackId,
      scheduleId: null,
      currency: part.currency,
      overdueAmount: 0,
      oldestDueDate: part.dueDate,
      daysOverdue: days,
      promised: 0,
      disputed: 0,
    };
    account.overdueAmount = addExact(account.overdueAmount, part.amount);
    if (part.dueDate < account.oldestDueDate) {
      account.oldestDueDate = part.dueDate;
      account.daysOverdue = days;
    }
    if (part.scheduleId !== null) {
      const due = scheduleDue.get(part.key);
      const older =
        due === undefined ||
        part.dueDate < due ||
        (part.dueDate === due && account.scheduleId !== null && part.scheduleId < account.scheduleId);
      if (older) {
        account.scheduleId = part.scheduleId;
        scheduleDue.set(part.key, part.dueDate);
      }
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

/** Accounts with their customer (name, phone, e-mail) and plan title, for the accounts shown (a page, or an export's batch). */
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
  const customers = new Map(
    (customerIds.length ? await repo.customersByIds(db, tenant, customerIds) : []).map((c) => [c.id, c]),
  );
  return accounts.map((account) => {
    const plan = account.trackId ? plans.get(account.trackId) : undefined;
    const customer = plan ? customers.get(plan.customer_id) : undefined;
    return {
      customerId: plan?.customer_id ?? null,
      customerName: customer?.name ?? null,
      phone: customer?.phone ?? null,
      email: customer?.email ?? null,
      trackId: account.trackId,
      planTitle: plan?.title ?? null,
      scheduleId: account.scheduleId,
      currency: account.currency,
      overdueAmount: account.overdueAmount,
      oldestDueDate: account.oldestDueDate,
      daysOverdue: account.daysOverdue,
      promised: account.promised,
      disputed: account.disputed,
    };
  });
}
