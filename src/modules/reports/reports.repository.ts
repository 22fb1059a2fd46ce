import { sql } from 'kysely';
import { type DialectName, quarterHourOf } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import { OPEN_OBLIGATION } from '../schedules/schedules.table.js';

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

const total = (column: string) => sql<string | number>`coalesce(sum(${sql.ref(column)}), 0)`;

export function countCustomers(db: DbOrTrx, tenant: TenantRef) {
  return db
    .selectFrom('customers')
    .select(['status', sql<string | number>`count(*)`.as('count')])
    .where(inTenant(tenant))
    .groupBy('status')
    .execute();
}

export function countPlans(db: DbOrTrx, tenant: TenantRef) {
  return db
    .selectFrom('tracks')
    .select(['status', sql<string | number>`count(*)`.as('count')])
    .where(inTenant(tenant))
    .groupBy('status')
    .execute();
}

/** Ledger sums per currency and entry type over a range of `occurred_at`. */
export function ledgerTotals(db: DbOrTrx, tenant: TenantRef, range: Range) {
  let q = db
    .selectFrom('ledger_entries')
    .select(['currency', 'type', total('amount').as('amount')])
    .where(inTenant(tenant))
    .where('type', 'in', BALANCE_ENTRY_TYPES);
  if (range.from) q = q.where('occurred_at', '>=', range.from);
  if (range.to) q = q.where('occurred_at', '<', range.to);
  return q.groupBy(['currency', 'type']).execute();
}

/** What plans (not archived) were owed at `at`: their balance entries before it, per currency. */
export function balancesAt(db: DbOrTrx, tenant: TenantRef, at: string) {
  return db
    .selectFrom('ledger_entries')
    .innerJoin('tracks', 'tracks.id', 'ledger_entries.track_id')
    .select(['ledger_entries.currency', total('ledger_entries.amount').as('amount')])
    .where('ledger_entries.workspace_id', '=', tenant.workspaceId)
    .where('ledger_entries.mode', '=', tenant.mode)
    .where('ledger_entries.type', 'in', BALANCE_ENTRY_TYPES)
    .where('ledger_entries.occurred_at', '<', at)
    .where('tracks.status', '<>', 'archived')
    .groupBy('ledger_entries.currency')
    .execute();
}

/** The first ledger entry of a tenant: where "all time" begins. */
export async function firstEntryAt(db: DbOrTrx, tenant: TenantRef): Promise<string | null> {
  const row = await db
    .selectFrom('ledger_entries')
    .select(sql<string | null>`min(occurred_at)`.as('first'))
    .where(inTenant(tenant))
    .executeTakeFirst();
  return row?.first ?? null;
}

/** What open obligations due in [fromDate, toDate) still owe, per currency. */
export function owedBetween(db: DbOrTrx, tenant: TenantRef, fromDate: string, toDate: string) {
  return db
    .selectFrom('obligations')
    .select(['currency', sql<string | number>`coalesce(sum(amount - amount_paid), 0)`.as('amount')])
    .where(inTenant(tenant))
    .where('status', 'in', OPEN_OBLIGATION)
    .where('due_date', '>=', fromDate)
    .where('due_date', '<', toDate)
    .groupBy('currency')
    .execute();
}

/** Recorded (not reversed) payments paid in a range, totalled per currency, method and UTC quarter hour. */
export function paymentSlots(db: DbOrTrx, dialect: DialectName, tenant: TenantRef, range: Range) {
  const slot = quarterHourOf(dialect, 'paid_at');
  let q = db
    .selectFrom('payments')
    .select([
      'currency',
      'method',
      slot.as('slot'),
      total('amount').as('amount'),
      sql<string | number>`count(*)`.as('count'),
    ])
    .where(inTenant(tenant))
    .where('status', '=', 'recorded');
  if (range.from) q = q.where('paid_at', '>=', range.from);
  if (range.to) q = q.where('paid_at', '<', range.to);
  return q.groupBy(['currency', 'method', slot]).execute();
}

/**
 * Obligations that were overdue at `at` or may have been: past their overdue time, and open now or paid in full
 * only after `at`.
 */
export function overdueCandidates(db: DbOrTrx, tenant: TenantRef, at: string) {
  return db
    .selectFrom('obligations')
    .select([
      'id',
      'track_id',
      'schedule_id',
      'due_date',
      'amount',
      'amount_paid',
      'currency',
      'status',
      'allocations',
    ])
    .where(inTenant(tenant))
    .where('overdue_at', '<=', at)
    .where((eb) =>
      eb.or([
        eb('status', 'in', OPEN_OBLIGATION),
        eb.and([eb('status', '=', 'paid'), eb('paid_at', '>', at)]),
      ]),
    )
    .execute();
}

/** Plans (not archived) whose final due date (a calendar date) is before `today`. */
export function plansPastDue(db: DbOrTrx, tenant: TenantRef, today: string) {
  return db
    .selectFrom('tracks')
    .select(['id', 'balance', 'due_date'])
    .where(inTenant(tenant))
    .where('status', '<>', 'archived')
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
      .select(['id', 'name'])
      .where(inTenant(tenant))
      .where('id', 'in', slice)
      .execute(),
  );
}
