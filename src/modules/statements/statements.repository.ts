import { type SqlBool, sql } from 'kysely';
import { type DialectName, inTenantFilterOnly, jsonTextOf } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { LedgerEntryType } from '../ledger/ledger.service.js';
import { overdueNowParts } from '../schedules/index.js';

/** Which of a customer's ledger entries a statement reads. */
export interface EntryScope {
  customerId: string;
  /** One currency, or all. */
  currency?: string;
  /** The money entry types: those that make lines. */
  types: readonly LedgerEntryType[];
  /** Entries at or after the end of the period (the start of the day after `to`) are left out. */
  end: string;
  /** Entries recorded after the statement began (ids from this one on) are left out, so every read agrees. */
  idBelow: string;
}

/** The lines of the plans (entries with a plan), or of the credit (entries on no plan, of unapplied money). */
export type Side = 'plans' | 'credit';

/** Per currency: the entries' sum before `start`, their sum to the end, and how many fall in [start, end). */
export interface SideSums {
  currency: string;
  opening: number | string;
  closing: number | string;
  lines: number | string;
}

/** The ledger entries of the scope on one side, joined to their payment (by `refs.paymentId`) and plan. */
function entries(db: DbOrTrx, dialect: DialectName, tenant: TenantRef, scope: EntryScope, side: Side) {
  let q = db
    .selectFrom('ledger_entries as l')
    .leftJoin('payments as p', (join) =>
      join.on(sql<SqlBool>`${sql.ref('p.id')} = ${jsonTextOf(dialect, 'l.refs', 'paymentId')}`),
    )
    .where('l.customer_id', '=', scope.customerId)
    .where(inTenantFilterOnly(dialect, tenant, 'l'))
    .where('l.type', 'in', scope.types)
    .where('l.occurred_at', '<', scope.end)
    .where('l.id', '<', scope.idBelow);
  if (scope.currency !== undefined) q = q.where('l.currency', '=', scope.currency);
  // Money on no plan is the customer's credit when it was unapplied money; a collection for a schedule without a
  // plan is on no plan too, but it paid that schedule's obligations: it is no credit, and no line of a plan.
  return side === 'plans'
    ? q.where('l.track_id', 'is not', null)
    : q.where('l.track_id', 'is', null).where('p.unapplied_reason', 'is not', null);
}

/** Per currency, the sums a statement opens and closes with, and how many lines it has in [start, end). */
export function sideSums(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: TenantRef,
  scope: EntryScope,
  side: Side,
  start: string,
): Promise<SideSums[]> {
  return entries(db, dialect, tenant, scope, side)
    .select([
      'l.currency',
      sql<
        number | string
      >`coalesce(sum(case when ${sql.ref('l.occurred_at')} < ${start} then ${sql.ref('l.amount')} else 0 end), 0)`.as(
        'opening',
      ),
      sql<number | string>`coalesce(sum(${sql.ref('l.amount')}), 0)`.as('closing'),
      sql<
        number | string
      >`coalesce(sum(case when ${sql.ref('l.occurred_at')} >= ${start} then 1 else 0 end), 0)`.as('lines'),
    ])
    .groupBy('l.currency')
    .orderBy('l.currency')
    .execute();
}

/** Where a page of lines ends: the last entry's time and id. */
export interface LinePosition {
  occurredAt: string;
  id: string;
}

/**
 * One page of the lines of one currency in [start, end), in the order they happened (then as recorded), after
 * `after`: each entry with what its line says of its payment and plan. A keyset read along the index of a
 * customer's entries by currency and time, so a page costs the same wherever it starts.
 */
export function linePage(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: TenantRef,
  scope: EntryScope & { currency: string },
  side: Side,
  start: string,
  after: LinePosition | null,
  limit: number,
) {
  let q = entries(db, dialect, tenant, scope, side)
    .leftJoin('tracks as t', (join) =>
      join.on(
        sql<SqlBool>`${sql.ref('t.id')} = coalesce(${sql.ref('l.track_id')}, ${jsonTextOf(dialect, 'l.refs', 'appliedTo')})`,
      ),
    )
    .select([
      'l.id',
      'l.type',
      'l.track_id',
      'l.amount',
      'l.occurred_at',
      'l.refs',
      'p.method',
      'p.reference',
      'p.reversal_reason',
      'p.refund_status',
      'p.unapplied_reason',
      't.title',
    ])
    .where('l.occurred_at', '>=', start);
  if (after) {
    q = q.where(
      sql<SqlBool>`(${sql.ref('l.occurred_at')}, ${sql.ref('l.id')}) > (${after.occurredAt}, ${after.id})`,
    );
  }
  return q.orderBy('l.occurred_at').orderBy('l.id').limit(limit).execute();
}

/**
 * The customer's plans, as a subquery of ids. Here and below the tenant only filters: the customer's plans (and
 * their obligations) are found by their own indexes, never by walking the workspace's.
 */
function plansOf(db: DbOrTrx, dialect: DialectName, tenant: TenantRef, customerId: string) {
  return db
    .selectFrom('tracks')
    .select('id')
    .where('customer_id', '=', customerId)
    .where(inTenantFilterOnly(dialect, tenant));
}

/** What the obligations of the customer's plans overdue at `at` still ask, per plan, currency and due date. */
export function overdueObligations(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: TenantRef,
  customerId: string,
  at: string,
) {
  const [recorded, notRecorded] = overdueNowParts(at);
  return db
    .selectFrom('obligations')
    .select(['track_id', 'currency', 'due_date', sql<number | string>`sum(amount - amount_paid)`.as('owed')])
    .where(inTenantFilterOnly(dialect, tenant))
    .where('track_id', 'in', plansOf(db, dialect, tenant, customerId))
    .where(sql<SqlBool>`(${recorded} or ${notRecorded})`)
    .groupBy(['track_id', 'currency', 'due_date'])
    .execute();
}

/** The customer's active plans with a balance left whose own dueDate is before `today`. */
export function plansPastDue(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: TenantRef,
  customerId: string,
  today: string,
) {
  return db
    .selectFrom('tracks')
    .select(['id', 'currency', 'balance', 'due_date'])
    .where('customer_id', '=', customerId)
    .where(inTenantFilterOnly(dialect, tenant))
    .where('status', '=', 'active')
    .where('balance', '>', 0)
    .where('due_date', '<', today)
    .execute();
}

/** What the open obligations of the customer's plans not overdue at `at` ask, per currency and due date. */
export function openNotOverdue(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: TenantRef,
  customerId: string,
  at: string,
) {
  return db
    .selectFrom('obligations')
    .select(['currency', 'due_date', sql<number | string>`sum(amount - amount_paid)`.as('owed')])
    .where(inTenantFilterOnly(dialect, tenant))
    .where('track_id', 'in', plansOf(db, dialect, tenant, customerId))
    .where('status', 'in', ['pending', 'partially_paid'])
    .where('overdue_at', '>', at)
    .groupBy(['currency', 'due_date'])
    .orderBy('due_date')
    .execute();
}
