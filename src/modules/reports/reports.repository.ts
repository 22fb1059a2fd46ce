import { type SqlBool, sql } from 'kysely';
import { inTenantByExpression } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import { OPEN_OBLIGATION, overdueNowParts } from '../schedules/index.js';

/** An instant range, either end open; `to` is excluded. */
export interface Range {
  from?: string;
  to?: string;
}

/** Ledger entry types that move a plan's balance. */
export const BALANCE_ENTRY_TYPES = [
  'plan.charged',
  'plan.adjusted',
  'payment.recorded',
  'payment.reversed',
  'payment.applied',
  'plan.written_off',
  'plan.write_off_reversed',
  'plan.settlement_discount',
  'fee.charged',
  'fee.waived',
] as const;

/** Ids a statement may list at once: SQLite takes at most 32,766 parameters. */
const IDS_PER_STATEMENT = 10_000;

/** Runs `query` over `ids` in slices a statement can carry, and concatenates the rows. */
async function inSlices<R>(ids: readonly string[], query: (slice: string[]) => Promise<R[]>): Promise<R[]> {
  const rows: R[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
    rows.push(...(await query(ids.slice(i, i + IDS_PER_STATEMENT))));
  }
  return rows;
}

/** Literal values, not parameters: SQLite uses a partial index only when a query's condition is its own. */
const IS_OPEN = sql<SqlBool>`status in (${sql.join(OPEN_OBLIGATION.map((status) => sql.lit(status)))})`;
const statusIs = (status: string) => sql<SqlBool>`status = ${sql.lit(status)}`;

const total = (column: string) => sql<string | number>`coalesce(sum(${sql.ref(column)}), 0)`;

/** What plans archived now had been owed at `at` (their balance entries before it), per currency. */
export function archivedBalancesAt(db: DbOrTrx, tenant: TenantRef, at: string) {
  return db
    .selectFrom('tracks')
    .innerJoin('ledger_entries', 'ledger_entries.track_id', 'tracks.id')
    .select(['ledger_entries.currency', total('ledger_entries.amount').as('amount')])
    .where('tracks.workspace_id', '=', tenant.workspaceId)
    .where('tracks.mode', '=', tenant.mode)
    .where('tracks.status', '=', 'archived')
    .where('ledger_entries.type', 'in', BALANCE_ENTRY_TYPES)
    .where('ledger_entries.occurred_at', '<', at)
    .groupBy('ledger_entries.currency')
    .execute();
}

/** The first ledger entry of a tenant: where "all time" begins. */
export async function firstEntryAt(db: DbOrTrx, tenant: TenantRef): Promise<string | null> {
  // The first of each mark's first: each is the start of a range of the index on (tenant, mark, time).
  let first: string | null = null;
  for (const mark of [0, 1]) {
    const row = await db
      .selectFrom('ledger_entries')
      .select('occurred_at')
      .where(inTenant(tenant))
      .where(sql<SqlBool>`rolled_up = ${sql.lit(mark)}`)
      .orderBy('occurred_at')
      .limit(1)
      .executeTakeFirst();
    if (row && (first === null || row.occurred_at < first)) first = row.occurred_at;
  }
  return first;
}

/**
 * For a report of an earlier time: obligations that were overdue at `at` or may have been (past their overdue
 * time, and open now, or paid in full, written off or waived only after `at`), with their allocations (what
 * they had been paid when).
 */
export async function overdueCandidates(db: DbOrTrx, tenant: TenantRef, at: string) {
  const columns = ['id', 'track_id', 'schedule_id', 'due_date', 'amount', 'currency', 'allocations'] as const;
  const open = await db
    .selectFrom('obligations')
    .select(columns)
    .where(inTenant(tenant))
    .where(IS_OPEN)
    .where('overdue_at', '<=', at)
    .execute();
  const paidSince = await db
    .selectFrom('obligations')
    .select(columns)
    .where(inTenant(tenant))
    .where(statusIs('paid'))
    .where('paid_at', '>', at)
    .where('overdue_at', '<=', at)
    .execute();
  // Written off or waived since: closed now, but owed then (what it was given up on is no payment).
  const givenUpSince = await db
    .selectFrom('obligations')
    .select(columns)
    .where(inTenant(tenant))
    .where('status', 'in', GIVEN_UP)
    .where('updated_at', '>', at)
    .where('overdue_at', '<=', at)
    .execute();
  return [...open, ...paidSince, ...givenUpSince];
}

/** Obligation statuses of what the business gave up: closed, and owing nothing from then on. */
const GIVEN_UP = ['written_off', 'waived'] as const;

/**
 * Now, obligations overdue (`overdueNowParts`): those the overdue sweep marked (read by status, from an index
 * that carries the figures), then those whose time came since it last ran.
 */
const OVERDUE_NOW = overdueNowParts;

/** Now: what overdue obligations owe, per account (plan, or schedule without one) and currency. */
export async function overdueByAccount(db: DbOrTrx, tenant: TenantRef, at: string) {
  const rows = [];
  const [recorded, notRecorded] = OVERDUE_NOW(at);
  for (const [condition, ofTenant] of [
    [recorded, inTenant(tenant)],
    [notRecorded, inTenantByExpression(tenant)],
  ] as const) {
    rows.push(
      ...(await db
        .selectFrom('obligations')
        .select([
          'track_id',
          'schedule_id',
          'currency',
          sql<string | number>`sum(amount - amount_paid)`.as('owed'),
          sql<string>`min(due_date)`.as('oldest'),
        ])
        .where(ofTenant)
        .where(condition)
        .groupBy(['track_id', 'schedule_id', 'currency'])
        .execute()),
    );
  }
  return rows;
}

/** Now: what open obligations due from `fromDate` through `throughDate` and past their overdue time owe, per currency and due date. */
export function overdueByDueDate(
  db: DbOrTrx,
  tenant: TenantRef,
  at: string,
  fromDate: string,
  throughDate: string,
) {
  return db
    .selectFrom('obligations')
    .select(['currency', 'due_date', sql<string | number>`sum(amount - amount_paid)`.as('owed')])
    .where(inTenant(tenant))
    .where(IS_OPEN)
    .where('due_date', '>=', fromDate)
    .where('due_date', '<=', throughDate)
    .where('overdue_at', '<=', at)
    .groupBy(['currency', 'due_date'])
    .execute();
}

/** Now: what the overdue obligations of the plans named owe, per plan (a plan may come twice: add them up). */
export async function overdueOfPlans(
  db: DbOrTrx,
  tenant: TenantRef,
  trackIds: readonly string[],
  at: string,
) {
  const rows = [];
  for (const condition of OVERDUE_NOW(at)) {
    rows.push(
      ...(await inSlices(trackIds, (slice) =>
        db
          .selectFrom('obligations')
          .select(['track_id', sql<string | number>`sum(amount - amount_paid)`.as('owed')])
          .where(inTenant(tenant))
          .where('track_id', 'in', slice)
          .where(condition)
          .groupBy('track_id')
          .execute(),
      )),
    );
  }
  return rows;
}

/**
 * Plans whose final due date (a calendar date) is before `today`: when `current`, those active now (the only ones
 * with a balance); else every plan not archived, whatever its balance now.
 */
export function plansPastDue(db: DbOrTrx, tenant: TenantRef, today: string, current: boolean) {
  return db
    .selectFrom('tracks')
    .select(['id', 'balance', 'due_date', 'currency'])
    .where(inTenant(tenant))
    .where(current ? statusIs('active') : sql<SqlBool>`status <> 'archived'`)
    .where('due_date', '<', today)
    .execute();
}

/** Each plan's balance at `at` (its balance entries before it), for the plans named. */
export function planBalancesAt(db: DbOrTrx, tenant: TenantRef, trackIds: readonly string[], at: string) {
  return inSlices(trackIds, (slice) =>
    db
      .selectFrom('ledger_entries')
      .select(['track_id', total('amount').as('amount')])
      .where(inTenant(tenant))
      .where('track_id', 'in', slice)
      .where('type', 'in', BALANCE_ENTRY_TYPES)
      .where('occurred_at', '<', at)
      .groupBy('track_id')
      .execute(),
  );
}

export function plansByIds(db: DbOrTrx, tenant: TenantRef, ids: readonly string[]) {
  return inSlices(ids, (slice) =>
    db
      .selectFrom('tracks')
      .select(['id', 'customer_id', 'title', 'currency', 'status'])
      .where(inTenant(tenant))
      .where('id', 'in', slice)
      .execute(),
  );
}

export function customersByIds(db: DbOrTrx, tenant: TenantRef, ids: readonly string[]) {
  return inSlices(ids, (slice) =>
    db
      .selectFrom('customers')
      .select(['id', 'name', 'phone', 'email'])
      .where(inTenant(tenant))
      .where('id', 'in', slice)
      .execute(),
  );
}

/** Promises to pay open at `at` (made by then, not resolved by then). */
export function promisesOpenAt(db: DbOrTrx, tenant: TenantRef, at: string) {
  return db
    .selectFrom('promises')
    .select(['track_id', 'obligation_id', 'amount'])
    .where(inTenant(tenant))
    .where('created_at', '<=', at)
    .where((eb) => eb.or([eb('resolved_at', 'is', null), eb('resolved_at', '>', at)]))
    .execute();
}

/** Disputes open at `at`: on a plan (or a payment of it: `obligation_id` null) or on one obligation. */
export function disputesOpenAt(db: DbOrTrx, tenant: TenantRef, at: string) {
  return db
    .selectFrom('disputes')
    .select(['track_id', 'obligation_id'])
    .where(inTenant(tenant))
    .where('created_at', '<=', at)
    .where((eb) => eb.or([eb('resolved_at', 'is', null), eb('resolved_at', '>', at)]))
    .execute();
}

/**
 * Obligations of the plans named, or named themselves, that were overdue at `at` or may have been (as
 * `overdueCandidates`), with their allocations.
 */
export async function overdueCandidatesOf(
  db: DbOrTrx,
  tenant: TenantRef,
  at: string,
  trackIds: readonly string[],
  obligationIds: readonly string[],
) {
  if (trackIds.length === 0 && obligationIds.length === 0) return [];
  return db
    .selectFrom('obligations')
    .select(['id', 'track_id', 'schedule_id', 'amount', 'allocations'])
    .where(inTenant(tenant))
    .where('overdue_at', '<=', at)
    .where((eb) =>
      eb.or([
        eb('status', 'in', OPEN_OBLIGATION),
        eb.and([eb('status', '=', 'paid'), eb('paid_at', '>', at)]),
        eb.and([eb('status', 'in', GIVEN_UP), eb('updated_at', '>', at)]),
      ]),
    )
    .where((eb) =>
      eb.or([
        ...(trackIds.length > 0 ? [eb('track_id', 'in', trackIds)] : []),
        ...(obligationIds.length > 0 ? [eb('id', 'in', obligationIds)] : []),
      ]),
    )
    .execute();
}
