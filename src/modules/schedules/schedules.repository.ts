import { sql } from 'kysely';
import { type DialectName, forUpdate } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { ScheduleListQuery } from './schedules.schemas.js';
import {
  OPEN_OBLIGATION,
  REPEATING_FREQUENCIES,
  type ScheduleStatus,
  type SchedulesTable,
} from './schedules.table.js';

/** The schedule with the due date of its oldest open obligation. */
export type ScheduleRow = SchedulesTable & { next_due_date: string | null };

export function insert(db: DbOrTrx, row: SchedulesTable) {
  return db.insertInto('schedules').values(row).execute();
}

function selectWithNextDue(db: DbOrTrx) {
  return db
    .selectFrom('schedules')
    .selectAll('schedules')
    .select((eb) =>
      eb
        .selectFrom('obligations')
        .select(sql<string>`min(due_date)`.as('d'))
        .whereRef('obligations.schedule_id', '=', 'schedules.id')
        .where('obligations.status', 'in', OPEN_OBLIGATION)
        .as('next_due_date'),
    );
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string): Promise<ScheduleRow | undefined> {
  return selectWithNextDue(db)
    .where('schedules.id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst() as Promise<ScheduleRow | undefined>;
}

/** The stored row alone, without the next due date. */
export function findRow(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('schedules')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** The schedule that has a virtual account number. */
export function findByVirtualAccount(db: DbOrTrx, tenant: TenantRef, accountNumber: string) {
  return db
    .selectFrom('schedules')
    .selectAll()
    .where(inTenant(tenant))
    .where('virtual_account_number', '=', accountNumber)
    .executeTakeFirst();
}

/** The schedule, locked until the transaction ends (PostgreSQL): generation and actions queue on it. */
export function findByIdForUpdate(db: DbOrTrx, dialect: DialectName, tenant: TenantRef, id: string) {
  return forUpdate(
    dialect,
    db.selectFrom('schedules').selectAll().where('id', '=', id).where(inTenant(tenant)),
  ).executeTakeFirst();
}

/** Sets a schedule's late fee policy (JSON, null for none) while it is in one of `from`. */
export function setLateFee(
  db: DbOrTrx,
  tenant: TenantRef,
  id: string,
  from: readonly ScheduleStatus[],
  lateFee: string | null,
  now: string,
) {
  return db
    .updateTable('schedules')
    .set({ late_fee: lateFee, updated_at: now })
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Moves a schedule from one of `from` to another state; no row when it is missing or in another state. */
export function updateIn(
  db: DbOrTrx,
  tenant: TenantRef,
  id: string,
  from: readonly ScheduleStatus[],
  changes: Partial<
    Pick<
      SchedulesTable,
      'status' | 'next_sequence' | 'top_up_at' | 'early_settlement_discount' | 'updated_at'
    >
  >,
) {
  return db
    .updateTable('schedules')
    .set(changes)
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

export function list(
  db: DbOrTrx,
  tenant: TenantRef,
  query: ScheduleListQuery & { limit: number },
  afterId: string | undefined,
): Promise<ScheduleRow[]> {
  let q = selectWithNextDue(db).where(inTenant(tenant));
  if (query.status) q = q.where('schedules.status', '=', query.status);
  if (query.target_type) q = q.where('schedules.target_type', '=', query.target_type);
  if (query.target_id) q = q.where('schedules.target_id', '=', query.target_id);
  return q.$call(newestFirst(afterId, query.limit)).execute() as Promise<ScheduleRow[]>;
}

/**
 * Completes an active or paused schedule that has nothing left to collect: not open-ended (it generated all it
 * ever will) and with no open obligation. One conditional statement, as it runs in payments.
 */
export function completeIfDone(db: DbOrTrx, tenant: TenantRef, id: string, now: string) {
  return db
    .updateTable('schedules')
    .set({ status: 'completed', top_up_at: null, updated_at: now })
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', 'in', ['active', 'paused'])
    .where((eb) => eb.or([eb('end_date', 'is not', null), eb('frequency', 'not in', REPEATING_FREQUENCIES)]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('obligations')
            .select('obligations.id')
            .whereRef('obligations.schedule_id', '=', 'schedules.id')
            .where('obligations.status', 'in', OPEN_OBLIGATION),
        ),
      ),
    )
    .returning('id')
    .executeTakeFirst();
}

/** The plan's schedules that are in force (active or paused). */
export function inForceOfTrack(db: DbOrTrx, tenant: TenantRef, trackId: string) {
  return db
    .selectFrom('schedules')
    .selectAll()
    .where('track_id', '=', trackId)
    .where(inTenant(tenant))
    .where('status', 'in', ['active', 'paused'])
    .execute();
}
