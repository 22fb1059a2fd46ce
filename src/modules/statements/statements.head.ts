import type { AppContext } from '../../context.js';
import type { DialectName } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { fieldError } from '../../lib/app-error.js';
import {
  daysBetween,
  firstOfMonthBefore,
  localDate,
  startOfDay,
  startOfFollowingDay,
} from '../../lib/calendar.js';
import { firstIdAt } from '../../lib/ids.js';
import { addExact, isCurrency, toSafeInteger } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import { getCustomerRow } from '../customers/customers.service.js';
import { AGEING_BUCKETS, type AgeingBucket, ageingBucket, daysOverdue } from '../reports/index.js';
import { type BusinessCard, businessCard } from '../workspaces/workspaces.service.js';
import { MONEY_ENTRY_TYPES } from './statements.lines.js';
import * as repo from './statements.repository.js';
import {
  type CurrencyStatement,
  MOST_DAYS,
  type Statement,
  type StatementQuery,
} from './statements.schemas.js';

/** The first date the service keeps: a default `from` before it starts there. */
const FIRST_DATE = '1970-01-01';

/** A statement's period: calendar dates in the workspace zone, and the instants that bound them. */
export interface StatementPeriod {
  from: string;
  to: string;
  /** The first instant of `from`. */
  start: string;
  /** The first instant after `to`. */
  end: string;
}

/**
 * The period asked for, or refused naming each bad field: `to` today by default and never after it, `from` by
 * default the first day of the month two months before `to`'s, not after `to` nor more than 366 days before it.
 */
export function periodOf(query: StatementQuery, today: string, timeZone: string): StatementPeriod {
  const problems: Record<string, string> = {};
  if (query.to !== undefined && query.to > today) {
    problems.to = `must not be after today, ${today} in the workspace time zone (${timeZone})`;
  }
  if (query.currency !== undefined && !isCurrency(query.currency)) {
    problems.currency = 'must be an ISO 4217 currency code such as NGN or USD';
  }
  const to = problems.to ? today : (query.to ?? today);
  const earliest = firstOfMonthBefore(to, 2);
  const from = query.from ?? (earliest < FIRST_DATE ? FIRST_DATE : earliest);
  const toWords = query.to === undefined ? 'to (today when absent)' : 'to';
  if (from > to) {
    problems.from = `must not be after ${toWords}`;
  } else if (daysBetween(from, to) > MOST_DAYS) {
    problems.from = `must be at most ${MOST_DAYS} days before ${toWords}`;
  }
  if (Object.keys(problems).length > 0) throw fieldError(problems);
  return { from, to, start: startOfDay(from, timeZone), end: startOfFollowingDay(to, timeZone) };
}

/** What a statement says of one currency before its lines are read. */
export interface CurrencyHead {
  currency: string;
  openingBalance: number;
  closingBalance: number;
  lineCount: number;
  credit: { openingBalance: number; closingBalance: number; lineCount: number };
  overdue: CurrencyStatement['overdue'];
  nextDue: CurrencyStatement['nextDue'];
}

/** Everything a statement shows but its lines: read at one moment, so its figures agree. */
export interface StatementHead {
  business: BusinessCard;
  customer: Statement['customer'];
  period: StatementPeriod;
  asOf: string;
  currencies: CurrencyHead[];
  /** What every read of the statement's lines is bounded by. */
  scope: Omit<repo.EntryScope, 'currency'>;
}

const noneOverdue = (): Record<AgeingBucket, number> =>
  Object.fromEntries(AGEING_BUCKETS.map((bucket) => [bucket, 0])) as Record<AgeingBucket, number>;

/**
 * Overdue now per currency, as the overdue report ages it: each overdue obligation of the customer's plans for
 * what it still asks, by its due date; a plan whose own dueDate has passed for its balance beyond that, by that date.
 */
async function overdueNow(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: Tenant,
  customerId: string,
  at: string,
  today: string,
): Promise<Map<string, CurrencyStatement['overdue']>> {
  const aged: { currency: string; amount: number; dueDate: string }[] = [];
  const owedByPlan = new Map<string, number>();
  for (const row of await repo.overdueObligations(db, dialect, tenant, customerId, at)) {
    const owed = toSafeInteger(row.owed);
    if (owed <= 0) continue;
    aged.push({ currency: row.currency, amount: owed, dueDate: row.due_date });
    if (row.track_id !== null)
      owedByPlan.set(row.track_id, addExact(owedByPlan.get(row.track_id) ?? 0, owed));
  }
  for (const plan of await repo.plansPastDue(db, dialect, tenant, customerId, today)) {
    const rest = addExact(plan.balance, -(owedByPlan.get(plan.id) ?? 0));
    if (rest > 0 && plan.due_date !== null) {
      aged.push({ currency: plan.currency, amount: rest, dueDate: plan.due_date });
    }
  }
  const byCurrency = new Map<string, CurrencyStatement['overdue']>();
  for (const part of aged) {
    const book = byCurrency.get(part.currency) ?? { total: 0, buckets: noneOverdue() };
    const bucket = ageingBucket(Math.max(1, daysOverdue(part.dueDate, today)));
    book.total = addExact(book.total, part.amount);
    book.buckets[bucket] = addExact(book.buckets[bucket], part.amount);
    byCurrency.set(part.currency, book);
  }
  return byCurrency;
}

/** Per currency, the earliest due date of the open obligations not yet overdue, and what they ask that day. */
async function nextDueNow(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: Tenant,
  customerId: string,
  at: string,
): Promise<Map<string, NonNullable<CurrencyStatement['nextDue']>>> {
  const next = new Map<string, NonNullable<CurrencyStatement['nextDue']>>();
  for (const row of await repo.openNotOverdue(db, dialect, tenant, customerId, at)) {
    const owed = toSafeInteger(row.owed);
    if (owed <= 0) continue;
    const known = next.get(row.currency);
    if (known && known.date < row.due_date) continue;
    next.set(row.currency, { date: row.due_date, amount: addExact(known?.amount ?? 0, owed) });
  }
  return next;
}

/** -n, without JSON's -0 for 0. */
export const negated = (n: number) => (n === 0 ? 0 : -n);

const sumsByCurrency = (rows: repo.SideSums[]) =>
  new Map(
    rows.map((row) => [
      row.currency,
      {
        opening: toSafeInteger(row.opening),
        closing: toSafeInteger(row.closing),
        lines: toSafeInteger(row.lines),
      },
    ]),
  );

/** The statement's head, read in the caller's snapshot; a 404 for a customer that is not there, a 422 for a bad query. */
export async function readHead(
  ctx: AppContext,
  trx: DbOrTrx,
  tenant: Tenant,
  customerId: string,
  query: StatementQuery,
): Promise<StatementHead> {
  const now = tenant.clock.now();
  const asOf = now.toISOString();
  const business = await businessCard(trx, tenant.workspaceId);
  const today = localDate(now, business.timeZone);
  const period = periodOf(query, today, business.timeZone);
  const customer = await getCustomerRow(trx, tenant, customerId);
  const scope = {
    customerId,
    types: MONEY_ENTRY_TYPES,
    end: period.end,
    // The next millisecond's first id: entries recorded from now on are not part of this statement.
    idBelow: firstIdAt('ledgerEntry', new Date(now.getTime() + 1)),
  };
  const asked = { ...scope, ...(query.currency ? { currency: query.currency } : {}) };
  const plans = sumsByCurrency(await repo.sideSums(trx, ctx.dialect, tenant, asked, 'plans', period.start));
  const credit = sumsByCurrency(await repo.sideSums(trx, ctx.dialect, tenant, asked, 'credit', period.start));
  const overdue = await overdueNow(trx, ctx.dialect, tenant, customerId, asOf, today);
  const nextDue = await nextDueNow(trx, ctx.dialect, tenant, customerId, asOf);
  const codes = query.currency
    ? [query.currency]
    : [...new Set([...plans.keys(), ...credit.keys(), ...overdue.keys(), ...nextDue.keys()])].sort();
  const zero = { opening: 0, closing: 0, lines: 0 };
  const currencies = codes
    .map((currency): CurrencyHead => {
      const onPlans = plans.get(currency) ?? zero;
      const held = credit.get(currency) ?? zero;
      return {
        currency,
        openingBalance: onPlans.opening,
        closingBalance: onPlans.closing,
        lineCount: onPlans.lines,
        // The ledger counts money on no plan as taken off what is owed (negative); credit is that money held.
        credit: {
          openingBalance: negated(held.opening),
          closingBalance: negated(held.closing),
          lineCount: held.lines,
        },
        overdue: overdue.get(currency) ?? { total: 0, buckets: noneOverdue() },
        nextDue: nextDue.get(currency) ?? null,
      };
    })
    .filter(
      (c) =>
        query.currency !== undefined ||
        c.openingBalance !== 0 ||
        c.closingBalance !== 0 ||
        c.lineCount > 0 ||
        c.credit.openingBalance !== 0 ||
        c.credit.closingBalance !== 0 ||
        c.credit.lineCount > 0 ||
        c.overdue.total > 0 ||
        c.nextDue !== null,
    );
  return {
    business,
    customer: { id: customer.id, name: customer.name, email: customer.email, phone: customer.phone },
    period,
    asOf,
    currencies,
    scope,
  };
}
