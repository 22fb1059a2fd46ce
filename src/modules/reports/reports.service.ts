import type { AppContext } from '../../context.js';
import { fieldError } from '../../lib/app-error.js';
import { addDays, localDate } from '../../lib/calendar.js';
import { toSafeInteger } from '../../lib/money.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { type OverdueBook, overdueBook } from './reports.overdue.js';
import { bucketOf, type GroupBy, type Period, periodOf } from './reports.period.js';
import * as repo from './reports.repository.js';
import type {
  Collections,
  CollectionsQuery,
  Overdue,
  OverdueQuery,
  ReportQuery,
  Summary,
} from './reports.schemas.js';

const DAY_MS = 86_400_000;

export async function timeZoneOf(ctx: AppContext, tenant: TenantRef): Promise<string> {
  const row = await ctx.db
    .selectFrom('workspaces')
    .select('timezone')
    .where('id', '=', tenant.workspaceId)
    .executeTakeFirstOrThrow();
  return row.timezone;
}

function byCurrency(rows: readonly { currency: string; amount: string | number }[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const row of rows)
    totals.set(row.currency, (totals.get(row.currency) ?? 0) + toSafeInteger(row.amount));
  return totals;
}

/** The overdue book as of `to`: from the stored figures when `to` is now or later, else from the history. */
export function overdueAsOf(
  ctx: AppContext,
  tenant: Tenant,
  at: string,
  timeZone: string,
): Promise<OverdueBook> {
  return overdueBook(ctx.db, tenant, at, timeZone, at >= tenant.clock.now().toISOString());
}

const ratio = (numerator: number, denominator: number, digits: number) =>
  denominator <= 0 ? null : Math.round((numerator / denominator) * 10 ** digits) / 10 ** digits;

/** `GET /reports/summary`. */
export async function summary(ctx: AppContext, tenant: Tenant, query: ReportQuery): Promise<Summary> {
  const period = periodOf(query, tenant.clock.now());
  const timeZone = await timeZoneOf(ctx, tenant);
  const customers = await repo.countCustomers(ctx.db, tenant);
  const plans = await repo.countPlans(ctx.db, tenant);
  const count = (rows: readonly { status: string; count: string | number }[], status?: string) =>
    rows.reduce(
      (sum, r) => sum + (status === undefined || r.status === status ? toSafeInteger(r.count) : 0),
      0,
    );

  const moved = await repo.ledgerTotals(ctx.db, tenant, {
    ...(period.from ? { from: period.from } : {}),
    to: period.end,
  });
  const billed = byCurrency(moved.filter((r) => r.type === 'plan.charged' || r.type === 'plan.adjusted'));
  const collected = new Map(
    [...byCurrency(moved.filter((r) => r.type === 'payment.recorded' || r.type === 'payment.reversed'))].map(
      ([currency, amount]) => [currency, -amount],
    ),
  );
  const outstandingAtEnd = byCurrency(await repo.balancesAt(ctx.db, tenant, period.end));
  const outstandingAtStart = period.from
    ? byCurrency(await repo.balancesAt(ctx.db, tenant, period.from))
    : new Map();
  const overdue = await overdueAsOf(ctx, tenant, period.end, timeZone);
  const today = localDate(period.to, timeZone);
  const expected = byCurrency(await repo.owedBetween(ctx.db, tenant, today, addDays(today, 30)));
  const start = period.from ?? (await repo.firstEntryAt(ctx.db, tenant)) ?? period.to;
  const days = Math.max(1, Math.ceil((Date.parse(period.to) - Date.parse(start)) / DAY_MS));

  const currencies = [
    ...new Set([
      ...billed.keys(),
      ...collected.keys(),
      ...outstandingAtEnd.keys(),
      ...overdue.currencies.keys(),
      ...expected.keys(),
    ]),
  ].sort();
  return {
    from: period.from,
    to: period.to,
    timezone: timeZone,
    customers: { total: count(customers), active: count(customers, 'active') },
    plans: {
      active: count(plans, 'active'),
      completed: count(plans, 'completed'),
      archived: count(plans, 'archived'),
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
        collectionRate: ratio(c, (outstandingAtStart.get(currency) ?? 0) + b, 4),
        dso: b <= 0 ? null : ratio(outstanding * days, b, 1),
        expectedNext30Days: expected.get(currency) ?? 0,
      };
    }),
  };
}

/** `GET /reports/collections`. */
export async function collections(
  ctx: AppContext,
  tenant: Tenant,
  query: CollectionsQuery,
): Promise<Collections> {
  const period = periodOf(query, tenant.clock.now());
  const groupBy: GroupBy = query.groupBy ?? 'day';
  const timeZone = await timeZoneOf(ctx, tenant);
  const slots = await repo.paymentSlots(ctx.db, ctx.dialect, tenant, {
    ...(period.from ? { from: period.from } : {}),
    to: period.end,
  });
  type Tally = { total: number; count: number };
  const add = (map: Map<string, Tally>, key: string, amount: number, n: number) => {
    const tally = map.get(key) ?? { total: 0, count: 0 };
    tally.total += amount;
    tally.count += n;
    map.set(key, tally);
  };
  const books = new Map<string, { all: Tally; methods: Map<string, Tally>; periods: Map<string, Tally> }>();
  for (const slot of slots) {
    const amount = toSafeInteger(slot.amount);
    const n = toSafeInteger(slot.count);
    const book = books.get(slot.currency) ?? {
      all: { total: 0, count: 0 },
      methods: new Map(),
      periods: new Map(),
    };
    book.all.total += amount;
    book.all.count += n;
    add(book.methods, slot.method, amount, n);
    add(book.periods, bucketOf(slot.slot, timeZone, groupBy), amount, n);
    books.set(slot.currency, book);
  }
  return {
    from: period.from,
    to: period.to,
    timezone: timeZone,
    groupBy,
    currencies: [...books.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, book]) => ({
        currency,
        ...book.all,
        byMethod: [...book.methods.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([method, tally]) => ({ method, ...tally })),
        periods: [...book.periods.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([p, tally]) => ({ period: p, ...tally })),
      })),
  };
}

function offsetOf(cursor: string | undefined): number {
  if (!cursor) return 0;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v?: unknown;
      offset?: unknown;
    };
    if (parsed.v === 1 && Number.isSafeInteger(parsed.offset) && (parsed.offset as number) >= 0)
      return parsed.offset as number;
  } catch {
    // the error below
  }
  throw fieldError({ cursor: 'is not a cursor returned by this report' });
}

/** `GET /reports/overdue`. */
export async function overdue(ctx: AppContext, tenant: Tenant, query: OverdueQuery): Promise<Overdue> {
  const period: Period = periodOf({ ...(query.to ? { to: query.to } : {}) }, tenant.clock.now());
  const offset = offsetOf(query.cursor);
  const limit = query.limit ?? 20;
  const timeZone = await timeZoneOf(ctx, tenant);
  const book = await overdueAsOf(ctx, tenant, period.to, timeZone);
  const accounts = query.currency
    ? book.accounts.filter((a) => a.currency === query.currency)
    : book.accounts;
  const page = accounts.slice(offset, offset + limit);
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
      next_cursor: more
        ? Buffer.from(JSON.stringify({ v: 1, offset: offset + limit }), 'utf8').toString('base64url')
        : null,
    },
  };
}
