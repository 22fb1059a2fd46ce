import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inSnapshot } from '../../db/unit-of-work.js';
import { addDays, LAST_DATE, localDate } from '../../lib/calendar.js';
import { decodeOffsetCursor, encodeOffsetCursor } from '../../lib/cursor.js';
import { addExact, toSafeInteger } from '../../lib/money.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { asReport } from './reports.exact.js';
import { describeAccounts, type OverdueFigures, overdueBook } from './reports.overdue.js';
import {
  AGEING_BUCKETS,
  type AgeingBucket,
  bucketsIn,
  type GroupBy,
  type Period,
  periodOf,
} from './reports.period.js';
import * as repo from './reports.repository.js';
import type {
  Collections,
  CollectionsQuery,
  Overdue,
  OverdueQuery,
  ReportQuery,
  Summary,
} from './reports.schemas.js';
import { ledgerKind } from './rollups.marks.js';
import { ledgerTotals, owedByDueDate, paymentSlots, type SlotTally, type Tally } from './rollups.reads.js';
import { statusCounts } from './rollups.statuses.js';

const DAY_MS = 86_400_000;

export async function timeZoneOf(db: DbOrTrx, tenant: TenantRef): Promise<string> {
  const row = await db
    .selectFrom('workspaces')
    .select('timezone')
    .where('id', '=', tenant.workspaceId)
    .executeTakeFirstOrThrow();
  return row.timezone;
}

function byCurrency(rows: readonly { currency: string; amount: string | number }[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const row of rows)
    totals.set(row.currency, addExact(totals.get(row.currency) ?? 0, toSafeInteger(row.amount)));
  return totals;
}

/**
 * The overdue book as of a period's `to`: from the stored figures when that is the time of the request, else from
 * the history; its accounts too unless only the totals are wanted. Whether it is now is decided once, with the
 * period: the clock moves while the report is read.
 */
function overdueAsOf(db: DbOrTrx, tenant: Tenant, period: Period, timeZone: string, withAccounts = true) {
  return overdueBook(db, tenant, period.to, timeZone, period.current, withAccounts);
}

/** The overdue book as of `period.to`, with the workspace's zone it is aged in. */
export function overdueBookAt(ctx: AppContext, tenant: Tenant, period: Period) {
  return asReport(() =>
    inSnapshot(ctx, async (db) => {
      const timeZone = await timeZoneOf(db, tenant);
      return { timeZone, book: await overdueAsOf(db, tenant, period, timeZone) };
    }),
  );
}

/** Sums tallies of the kinds given per currency. */
function sumKinds(tallies: readonly Tally[], kinds: readonly string[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const t of tallies)
    if (kinds.includes(t.kind)) totals.set(t.currency, addExact(totals.get(t.currency) ?? 0, t.amount));
  return totals;
}

const minus = (a: Map<string, number>, b: Map<string, number>) =>
  new Map(
    [...new Set([...a.keys(), ...b.keys()])].map((k) => [k, addExact(a.get(k) ?? 0, -(b.get(k) ?? 0))]),
  );

const BILLED = ['plan.charged', 'plan.adjusted'];
const PAID = ['payment.recorded', 'payment.reversed'];
const COLLECTED = [...PAID, ...PAID.map((type) => ledgerKind(type, null))];
/** Given up: write-offs net of their reversals, and the discounts of settlement quotes paid. */
const WRITTEN_OFF = ['plan.written_off', 'plan.write_off_reversed', 'plan.settlement_discount'];
const withPlanless = (types: readonly string[]) => [...types, ...types.map((type) => ledgerKind(type, null))];
const FEES_CHARGED = withPlanless(['fee.charged']);
const FEES_WAIVED = withPlanless(['fee.waived']);

/** What plans not archived now were owed at `at`: every plan's balance entries before it, less the archived ones'. */
async function outstandingAt(db: DbOrTrx, tenant: TenantRef, movedBefore: readonly Tally[], at: string) {
  return minus(
    sumKinds(movedBefore, repo.BALANCE_ENTRY_TYPES),
    byCurrency(await repo.archivedBalancesAt(db, tenant, at)),
  );
}

const ratio = (numerator: number, denominator: number, digits: number) =>
  denominator <= 0 ? null : Math.round((numerator / denominator) * 10 ** digits) / 10 ** digits;

const noneOverdue = () =>
  Object.fromEntries(AGEING_BUCKETS.map((b) => [b, 0])) as Record<AgeingBucket, number>;

/** `GET /reports/summary`. */
export function summary(ctx: AppContext, tenant: Tenant, query: ReportQuery): Promise<Summary> {
  const period = periodOf(query, tenant.clock.now());
  return asReport(() => inSnapshot(ctx, (db) => summaryIn(db, tenant, period)));
}

async function summaryIn(db: DbOrTrx, tenant: Tenant, period: Period): Promise<Summary> {
  const timeZone = await timeZoneOf(db, tenant);
  const customers = await statusCounts(db, tenant, 'customers');
  const plans = await statusCounts(db, tenant, 'plans');

  const movedBeforeEnd = await ledgerTotals(db, tenant, null, period.end);
  const movedBeforeStart = period.from ? await ledgerTotals(db, tenant, null, period.from) : [];
  const billed = minus(sumKinds(movedBeforeEnd, BILLED), sumKinds(movedBeforeStart, BILLED));
  const collected = minus(sumKinds(movedBeforeStart, COLLECTED), sumKinds(movedBeforeEnd, COLLECTED));
  // Entries that lower a balance are negative: what the period moved, start less end, is a positive figure.
  const lowered = (kinds: readonly string[]) =>
    minus(sumKinds(movedBeforeStart, kinds), sumKinds(movedBeforeEnd, kinds));
  const writtenOff = lowered(WRITTEN_OFF);
  const feesCharged = minus(sumKinds(movedBeforeEnd, FEES_CHARGED), sumKinds(movedBeforeStart, FEES_CHARGED));
  const feesWaived = lowered(FEES_WAIVED);
  const outstandingAtEnd = await outstandingAt(db, tenant, movedBeforeEnd, period.end);
  const outstandingAtStart = period.from
    ? await outstandingAt(db, tenant, movedBeforeStart, period.from)
    : new Map<string, number>();
  const overdue = await overdueAsOf(db, tenant, period, timeZone, false);
  const today = localDate(period.to, timeZone);
  // No due date falls after the last date kept: a horizon past it is no bound.
  const horizon = today > addDays(LAST_DATE, -30) ? {} : { to: addDays(today, 30) };
  const expected = byCurrency(await owedByDueDate(db, tenant, { from: today, ...horizon }));
  const start = period.from ?? (await repo.firstEntryAt(db, tenant)) ?? period.to;
  const days = Math.max(1, Math.ceil((Date.parse(period.to) - Date.parse(start)) / DAY_MS));

  const currencies = [
    ...new Set([
      ...billed.keys(),
      ...collected.keys(),
      ...writtenOff.keys(),
      ...feesCharged.keys(),
      ...feesWaived.keys(),
      ...outstandingAtEnd.keys(),
      ...overdue.currencies.keys(),
      ...expected.keys(),
    ]),
  ].sort();
  return {
    from: period.from,
    to: period.to,
    timezone: timeZone,
    customers: {
      total: [...customers.values()].reduce((sum, n) => addExact(sum, n), 0),
      active: customers.get('active') ?? 0,
    },
    plans: {
      active: plans.get('active') ?? 0,
      completed: plans.get('completed') ?? 0,
      archived: plans.get('archived') ?? 0,
    },
    currencies: currencies.map((currency) => {
      const b = billed.get(currency) ?? 0;
      const c = collected.get(currency) ?? 0;
      const outstanding = outstandingAtEnd.get(currency) ?? 0;
      return {
        currency,
        billed: b,
        collected: c,
        outstanding,
        overdue: overdue.currencies.get(currency)?.total ?? 0,
        overdueBuckets: overdue.currencies.get(currency)?.buckets ?? noneOverdue(),
        collectionRate: ratio(c, (outstandingAtStart.get(currency) ?? 0) + b, 4),
        dso: b <= 0 ? null : ratio(outstanding * days, b, 1),
        expectedNext30Days: expected.get(currency) ?? 0,
        writtenOff: writtenOff.get(currency) ?? 0,
        feesCharged: feesCharged.get(currency) ?? 0,
        feesWaived: feesWaived.get(currency) ?? 0,
      };
    }),
  };
}

/** `GET /reports/collections`. */
export function collections(ctx: AppContext, tenant: Tenant, query: CollectionsQuery): Promise<Collections> {
  const period = periodOf(query, tenant.clock.now());
  const groupBy: GroupBy = query.groupBy ?? 'day';
  return asReport(() =>
    inSnapshot(ctx, async (db) =>
      collectionsOf(
        period,
        groupBy,
        await timeZoneOf(db, tenant),
        await paymentSlots(db, ctx.dialect, tenant, period.from, period.end),
      ),
    ),
  );
}

function collectionsOf(
  period: Period,
  groupBy: GroupBy,
  timeZone: string,
  slots: readonly SlotTally[],
): Collections {
  type Sum = { total: number; count: number };
  const add = (map: Map<string, Sum>, key: string, amount: number, n: number) => {
    const tally = map.get(key) ?? { total: 0, count: 0 };
    tally.total = addExact(tally.total, amount);
    tally.count = addExact(tally.count, n);
    map.set(key, tally);
  };
  const books = new Map<string, { all: Sum; methods: Map<string, Sum>; periods: Map<string, Sum> }>();
  const bucket = new Map<string, string>();
  const bucketOf = bucketsIn(timeZone, groupBy);
  for (const slot of slots) {
    const book = books.get(slot.currency) ?? {
      all: { total: 0, count: 0 },
      methods: new Map(),
      periods: new Map(),
    };
    book.all.total = addExact(book.all.total, slot.amount);
    book.all.count = addExact(book.all.count, slot.count);
    add(book.methods, slot.kind, slot.amount, slot.count);
    let periodKey = bucket.get(slot.slot);
    if (periodKey === undefined) {
      periodKey = bucketOf(slot.slot);
      bucket.set(slot.slot, periodKey);
    }
    add(book.periods, periodKey, slot.amount, slot.count);
    books.set(slot.currency, book);
  }
  // Folded payments reversed since net to nothing: what has no payment left is not shown.
  const counted = <K>(entries: Iterable<[K, Sum]>) => [...entries].filter(([, sum]) => sum.count !== 0);
  return {
    from: period.from,
    to: period.to,
    timezone: timeZone,
    groupBy,
    currencies: counted(
      [...books.entries()].map(([currency, book]) => [{ currency, book }, book.all] as const),
    )
      .sort(([a], [b]) => a.currency.localeCompare(b.currency))
      .map(([{ currency, book }]) => ({
        currency,
        ...book.all,
        byMethod: counted(book.methods.entries())
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([method, sum]) => ({ method, ...sum })),
        periods: counted(book.periods.entries())
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([p, sum]) => ({ period: p, ...sum })),
      })),
  };
}

/** Accounts (in the book's order) by the most days overdue, then the largest amount; otherwise as they were. */
const mostDaysFirst = (accounts: readonly OverdueFigures[]) =>
  accounts
    .map((account, index) => ({ account, index }))
    .sort(
      (a, b) =>
        b.account.daysOverdue - a.account.daysOverdue ||
        b.account.overdueAmount - a.account.overdueAmount ||
        a.index - b.index,
    )
    .map(({ account }) => account);

/** `GET /reports/overdue`. */
export async function overdue(ctx: AppContext, tenant: Tenant, query: OverdueQuery): Promise<Overdue> {
  const period: Period = periodOf({ ...(query.to ? { to: query.to } : {}) }, tenant.clock.now());
  const offset = query.cursor ? decodeOffsetCursor(query.cursor) : 0;
  const limit = query.limit ?? 20;
  const { timeZone, book } = await overdueBookAt(ctx, tenant, period);
  const chosen = query.currency ? book.accounts.filter((a) => a.currency === query.currency) : book.accounts;
  const accounts = query.order === 'days_overdue' ? mostDaysFirst(chosen) : chosen;
  const page = await describeAccounts(ctx.db, tenant, accounts.slice(offset, offset + limit));
  const more = offset + limit < accounts.length;
  return {
    asOf: period.to,
    timezone: timeZone,
    currencies: [...book.currencies.entries()]
      .filter(([currency]) => !query.currency || currency === query.currency)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, figures]) => ({ currency, ...figures })),
    accounts: {
      items: page,
      has_more: more,
      next_cursor: more ? encodeOffsetCursor(offset + limit) : null,
    },
  };
}
