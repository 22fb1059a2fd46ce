import { type QueryCreator, type SqlBool, sql } from 'kysely';
import { type DialectName, forUpdateSkipLocked, inTenantFilterOnly } from '../../db/dialect.js';
import type { Database, DbOrTrx } from '../../db/schema.js';
import { inTenant, inTenantGroup, newestFirst, type TenantGroup } from '../../db/scoping.js';
import { rowsOf, shaped } from '../../db/shaped-statements.js';
import type { KeyedPosition } from '../../lib/cursor.js';
import { toSafeInteger } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';
import { hasStatusAt, type ObligationStatusFilter } from './obligations.overdue.js';
import type { ObligationListQuery } from './schedules.schemas.js';
import { type ObligationStatus, type ObligationsTable, OPEN_OBLIGATION } from './schedules.table.js';

/**
 * Status conditions written out, not bound: SQLite uses a partial index only for a query whose condition is the
 * index's own, and PostgreSQL's generic plans of prepared statements likewise.
 */
const statusIn = (statuses: readonly ObligationStatus[]) =>
  sql<boolean>`status in (${sql.join(statuses.map((status) => sql.lit(status)))})`;
/** Open obligations: a payment can still pay them (partial index `obligations_track_open`). */
const isOpen = statusIn(OPEN_OBLIGATION);
/** Obligations that turn overdue when their time comes (partial index `obligations_falling_overdue`). */
const isFallingDue = statusIn(['pending', 'partially_paid']);

/** Inserts obligations; a due date the schedule already has is skipped. Returns the rows inserted. */
export async function insertMany(db: DbOrTrx, rows: readonly ObligationsTable[]) {
  const inserted: ObligationsTable[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    inserted.push(
      ...(await db
        .insertInto('obligations')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) =>
          oc
            .columns(['schedule_id', 'due_date'])
            // A literal: SQLite matches a partial index only by its own condition, not a parameter.
            .where(sql<SqlBool>`kind = ${sql.lit('instalment')}`)
            .doNothing(),
        )
        .returningAll()
        .execute()),
    );
  }
  return inserted;
}

/** Rows per insert statement: well under both databases' limits on bound parameters. */
const INSERT_CHUNK = 200;

export function findById(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('obligations')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** The tenant's obligation whose checkout this is. */
export function findByCheckout(db: DbOrTrx, tenant: TenantRef, checkoutId: string) {
  return db
    .selectFrom('obligations')
    .selectAll()
    .where(inTenant(tenant))
    .where('checkout_id', '=', checkoutId)
    .executeTakeFirst();
}

/** The obligation whose checkout this is, in any workspace: what a checkout page's address names. */
export function findByCheckoutAnywhere(db: DbOrTrx, checkoutId: string) {
  return db.selectFrom('obligations').selectAll().where('checkout_id', '=', checkoutId).executeTakeFirst();
}

/** How many instalments a schedule asks (cancelled ones left out), up to sequence number `upTo` when given. */
export async function countAskedOfSchedule(db: DbOrTrx, scheduleId: string, upTo: number | null) {
  let q = db
    .selectFrom('obligations')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('schedule_id', '=', scheduleId)
    .where('kind', '=', 'instalment')
    .where('status', '!=', 'cancelled');
  if (upTo !== null) q = q.where('sequence', '<=', upTo);
  return toSafeInteger((await q.executeTakeFirstOrThrow()).n, 'obligations');
}

/** A schedule's obligations, newest first; `status` as it is at `at` (`statusAt`). */
export function list(
  db: DbOrTrx,
  tenant: TenantRef,
  scheduleId: string,
  query: ObligationListQuery & { limit: number },
  at: string,
  afterId: string | undefined,
) {
  let q = db
    .selectFrom('obligations')
    .selectAll()
    .where('schedule_id', '=', scheduleId)
    .where(inTenant(tenant));
  if (query.status) q = q.where(hasStatusAt(query.status, at));
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

/** What `GET /obligations` filters by; `status` as it is at the time of the request (`statusAt`). */
export interface ObligationFilters {
  status?: ObligationStatusFilter | undefined;
  due_from?: string | undefined;
  due_to?: string | undefined;
  customer_id?: string | undefined;
  track_id?: string | undefined;
  schedule_id?: string | undefined;
}

/**
 * A tenant's obligations across its schedules, what falls due first first (due date, then id), after `after`;
 * `limit + 1` rows. Indexes by (tenant, due date, id), by (tenant, status, due date, id), by (plan, due date, id)
 * and by (schedule, due date) serve the order with each filter; a plan, schedule or customer filter reads its
 * own index, the tenant condition filtering it.
 */
export function listByDueDate(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: TenantRef,
  filters: ObligationFilters,
  at: string,
  after: KeyedPosition | undefined,
  limit: number,
) {
  const narrowed = Boolean(filters.schedule_id || filters.track_id || filters.customer_id);
  let q = db
    .selectFrom('obligations')
    .selectAll()
    .where(narrowed ? inTenantFilterOnly(dialect, tenant) : inTenant(tenant));
  if (filters.status) q = q.where(hasStatusAt(filters.status, at));
  if (filters.due_from) q = q.where('due_date', '>=', filters.due_from);
  if (filters.due_to) q = q.where('due_date', '<=', filters.due_to);
  if (filters.schedule_id) q = q.where('schedule_id', '=', filters.schedule_id);
  if (filters.track_id) q = q.where('track_id', '=', filters.track_id);
  const customerId = filters.customer_id;
  if (customerId) {
    q = q.where('track_id', 'in', (eb) =>
      eb
        .selectFrom('tracks')
        .select('id')
        .where(inTenantFilterOnly(dialect, tenant))
        .where('customer_id', '=', customerId),
    );
  }
  if (after) q = q.where(sql<boolean>`(due_date, id) > (${after.key}, ${after.id})`);
  return q
    .orderBy('due_date')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
}

/** The customer of each plan named, by plan id. */
export async function customersOfTracks(
  db: DbOrTrx,
  tenant: TenantRef,
  trackIds: readonly string[],
): Promise<Map<string, string>> {
  if (trackIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('tracks')
    .select(['id', 'customer_id'])
    .where(inTenant(tenant))
    .where('id', 'in', trackIds)
    .execute();
  return new Map(rows.map((r) => [r.id, r.customer_id]));
}

/** Open obligations of a schedule, oldest due date first. */
export function openOfSchedule(db: DbOrTrx, scheduleId: string) {
  return db
    .selectFrom('obligations')
    .selectAll()
    .where('schedule_id', '=', scheduleId)
    .where(isOpen)
    .orderBy('due_date')
    .orderBy('id')
    .execute();
}

/**
 * Open obligations of a plan across its schedules, oldest due date first: the order payments pay them in. A
 * plain index scan on purpose: it runs in every payment, and joins or window functions here cost PostgreSQL
 * several times the planning.
 */
const openOfTrackStatement = shaped((db, trackId: string) =>
  db
    .selectFrom('obligations')
    .select(['id', 'schedule_id', 'amount', 'amount_paid', 'allocations', 'status'])
    .where('track_id', '=', trackId)
    // Written out, not bound: a prepared statement's generic plan can then use the partial index of open ones.
    .where(isOpen)
    .orderBy('due_date')
    .orderBy('id'),
);

export function openOfTrack(db: DbOrTrx, trackId: string) {
  return rowsOf(db, openOfTrackStatement(db, trackId));
}

/** What each open obligation of a plan still asks, by due date, oldest first (what is due now, and next). */
export function openDueOfTrack(db: DbOrTrx, trackId: string) {
  return db
    .selectFrom('obligations')
    .select(['due_date', 'amount', 'amount_paid'])
    .where('track_id', '=', trackId)
    .where(isOpen)
    .orderBy('due_date')
    .orderBy('id')
    .execute();
}

/**
 * Pays `part` into an open obligation that owes at least that much, with its list of allocations as it now is. Paid in full: `paid`.
 * Otherwise an overdue one stays overdue and any other becomes partially paid (only the overdue sweep makes it
 * overdue, with its event).
 */
const payStatement = shaped((db, id: string, part: number, allocations: string, now: string) =>
  payQuery(db, id, part, allocations, now).returningAll(),
);

export async function pay(db: DbOrTrx, id: string, part: number, allocations: string, now: string) {
  return (await rowsOf(db, payStatement(db, id, part, allocations, now)))[0];
}

/**
 * Pays `part` into an obligation already partly paid or overdue that stays open after it: its status and
 * `paid_at` do not change, so the statement does not set them, and the indexes that hold the status (eight of
 * the table's) are not rewritten. Undefined when the obligation is not in that state (the caller pays it with
 * `pay`).
 */
const payKeepingStatusStatement = shaped((db, id: string, part: number, allocations: string, now: string) =>
  db
    .updateTable('obligations')
    .set({ amount_paid: sql`amount_paid + ${part}`, allocations, updated_at: now })
    .where('id', '=', id)
    .where(statusIn(['partially_paid', 'overdue']))
    .where(sql<boolean>`amount_paid + ${part} < amount`)
    .returningAll(),
);

export async function payKeepingStatus(
  db: DbOrTrx,
  id: string,
  part: number,
  allocations: string,
  now: string,
) {
  return (await rowsOf(db, payKeepingStatusStatement(db, id, part, allocations, now)))[0];
}

/** The conditional update that pays `part` into an open obligation, for a statement of the caller's (a CTE). */
export function payQuery(
  creator: QueryCreator<Database>,
  id: string,
  part: number,
  allocations: string,
  now: string,
) {
  return creator
    .updateTable('obligations')
    .set({
      amount_paid: sql`amount_paid + ${part}`,
      allocations,
      status: sql`case when amount_paid + ${part} >= amount then 'paid' when status = 'overdue' then 'overdue' else 'partially_paid' end`,
      paid_at: sql`case when amount_paid + ${part} >= amount then ${now} else paid_at end`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where(isOpen)
    .where(sql<boolean>`amount_paid + ${part} <= amount`);
}

/** What the open obligations of a plan still ask (what they are for, less what they were paid), leaving out one schedule's. */
export async function owedOnTrack(db: DbOrTrx, trackId: string, exceptScheduleId?: string): Promise<number> {
  let q = db
    .selectFrom('obligations')
    .select(sql<string | number | null>`sum(amount - amount_paid)`.as('owed'))
    .where('track_id', '=', trackId)
    .where(isOpen);
  if (exceptScheduleId !== undefined) q = q.where('schedule_id', '<>', exceptScheduleId);
  const row = await q.executeTakeFirst();
  return toSafeInteger(row?.owed ?? 0, 'what open obligations ask');
}

/** The schedules with open obligations on a plan, oldest first. */
export async function schedulesAskingOnTrack(db: DbOrTrx, trackId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('obligations')
    .select('schedule_id')
    .distinct()
    .where('track_id', '=', trackId)
    .where(isOpen)
    .orderBy('schedule_id')
    .execute();
  return rows.map((r) => r.schedule_id);
}

/** Open obligations of a plan across its schedules, latest due date first: the order a lowered amount trims them in. */
export function openOfTrackLatestFirst(db: DbOrTrx, trackId: string) {
  return db
    .selectFrom('obligations')
    .selectAll()
    .where('track_id', '=', trackId)
    .where(isOpen)
    .orderBy('due_date', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** The last instalment a schedule has (by due date), to place one after it. */
export function lastOfSchedule(db: DbOrTrx, scheduleId: string) {
  return db
    .selectFrom('obligations')
    .select(['due_date', 'sequence'])
    .where('schedule_id', '=', scheduleId)
    .where('kind', '=', 'instalment')
    .orderBy('due_date', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Takes back `part` of what an obligation was paid (a reversed payment). A cancelled one stays cancelled; any
 * other is open again: overdue when its overdue time has come, else pending or partially paid.
 */
export function unpay(db: DbOrTrx, id: string, part: number, allocations: string, now: string) {
  return db
    .updateTable('obligations')
    .set({
      amount_paid: sql`amount_paid - ${part}`,
      allocations,
      status: sql`case when status = 'cancelled' then 'cancelled' when overdue_at <= ${now} then 'overdue' when amount_paid - ${part} > 0 then 'partially_paid' else 'pending' end`,
      paid_at: sql`case when status = 'cancelled' then paid_at else null end`,
      updated_at: now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export function setAmount(db: DbOrTrx, id: string, amount: number, status: ObligationStatus, now: string) {
  return db
    .updateTable('obligations')
    .set({
      amount,
      status,
      updated_at: now,
      ...(status === 'paid' ? { paid_at: now } : {}),
    })
    .where('id', '=', id)
    .where(isOpen)
    .returningAll()
    .executeTakeFirst();
}

export function cancel(db: DbOrTrx, id: string, now: string) {
  return db
    .updateTable('obligations')
    .set({ status: 'cancelled', updated_at: now })
    .where('id', '=', id)
    .where(isOpen)
    .returningAll()
    .executeTakeFirst();
}

/** Cancels the open obligations of a schedule. */
export function cancelOpenOfSchedule(db: DbOrTrx, scheduleId: string, now: string) {
  return db
    .updateTable('obligations')
    .set({ status: 'cancelled', updated_at: now })
    .where('schedule_id', '=', scheduleId)
    .where(isOpen)
    .returningAll()
    .execute();
}

/**
 * Up to `limit` open obligations of a tenant group whose overdue time has come, locked (PostgreSQL) and
 * skipping those another sweep holds, so two sweeps at once never wait on each other's rows.
 */
export function fallingOverdue(
  db: DbOrTrx,
  dialect: DialectName,
  group: TenantGroup,
  now: string,
  limit: number,
) {
  return forUpdateSkipLocked(
    dialect,
    db
      .selectFrom('obligations')
      .select('id')
      .where(inTenantGroup(group))
      .where(isFallingDue)
      .where('overdue_at', '<=', now)
      .orderBy('overdue_at')
      .limit(limit),
  ).execute();
}

/** When the next open obligation of a tenant group falls overdue after `now`; null when none will. */
export async function nextFallingOverdue(
  db: DbOrTrx,
  group: TenantGroup,
  now: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('obligations')
    .select((eb) => eb.fn.min('overdue_at').as('next'))
    .where(inTenantGroup(group))
    .where(isFallingDue)
    .where('overdue_at', '>', now)
    .executeTakeFirst();
  return row?.next ?? null;
}

export function markOverdue(db: DbOrTrx, ids: readonly string[], now: string) {
  return db
    .updateTable('obligations')
    .set({ status: 'overdue', updated_at: now })
    .where('id', 'in', ids)
    .where(isFallingDue)
    .where('overdue_at', '<=', now)
    .returningAll()
    .execute();
}

/** Open instalments (not fees) of a schedule, oldest due date first. */
export function openInstalmentsOfSchedule(db: DbOrTrx, scheduleId: string) {
  return db
    .selectFrom('obligations')
    .selectAll()
    .where('schedule_id', '=', scheduleId)
    .where('kind', '=', 'instalment')
    .where(isOpen)
    .orderBy('due_date')
    .orderBy('id')
    .execute();
}

/** The last fee period charged on an instalment (waived or not); null when none was. */
export async function lastFeePeriod(db: DbOrTrx, instalmentId: string): Promise<number | null> {
  const row = await db
    .selectFrom('obligations')
    .select((eb) => eb.fn.max('fee_period').as('last'))
    .where('fee_of', '=', instalmentId)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? null : toSafeInteger(row.last, 'fee period');
}

/**
 * Moves an instalment's next fee period, conditional on the one it leaves (`from`): no row when another change
 * moved it first.
 */
export function setFeeNext(
  db: DbOrTrx,
  id: string,
  from: string | null,
  next: { fee_next_at: string | null; fee_period: number | null },
) {
  return db
    .updateTable('obligations')
    .set(next)
    .where('id', '=', id)
    .where('kind', '=', 'instalment')
    .where((eb) => (from === null ? eb('fee_next_at', 'is', null) : eb('fee_next_at', '=', from)))
    .returningAll()
    .executeTakeFirst();
}

/** Up to `limit` open instalments of a tenant group whose next fee period has come, earliest first. */
export function feesDue(db: DbOrTrx, group: TenantGroup, now: string, limit: number) {
  return db
    .selectFrom('obligations')
    .select(['id', 'workspace_id', 'fee_next_at'])
    .where('fee_next_at', '<=', now)
    .where(inTenantGroup(group))
    .orderBy('fee_next_at')
    .limit(limit)
    .execute();
}

/** When the next fee period of a tenant group falls due after `now`; null when none will. */
export async function nextFeeDue(db: DbOrTrx, group: TenantGroup, now: string): Promise<string | null> {
  const row = await db
    .selectFrom('obligations')
    .select((eb) => eb.fn.min('fee_next_at').as('next'))
    .where('fee_next_at', '>', now)
    .where(inTenantGroup(group))
    .executeTakeFirst();
  return row?.next ?? null;
}

/** What the fees on an instalment, or on a plan, add up to: every fee charged but those waived or cancelled. */
export async function feesCharged(db: DbOrTrx, on: { feeOf: string } | { trackId: string }): Promise<number> {
  let q = db
    .selectFrom('obligations')
    .select(sql<string | number | null>`sum(amount)`.as('total'))
    .where('kind', '=', 'fee')
    .where('status', 'not in', ['waived', 'cancelled']);
  q = 'feeOf' in on ? q.where('fee_of', '=', on.feeOf) : q.where('track_id', '=', on.trackId);
  const row = await q.executeTakeFirst();
  return toSafeInteger(row?.total ?? 0, 'fees charged');
}

/** Inserts a fee; none when its period was already charged (the unique index of fee_of and fee_period). */
export function insertFee(db: DbOrTrx, row: ObligationsTable) {
  return db
    .insertInto('obligations')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['fee_of', 'fee_period']).where(sql<SqlBool>`fee_of is not null`).doNothing(),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Marks an open fee waived, conditional on the status it leaves. */
export function waive(db: DbOrTrx, id: string, from: ObligationStatus, now: string) {
  return db
    .updateTable('obligations')
    .set({ status: 'waived', updated_at: now })
    .where('id', '=', id)
    .where('kind', '=', 'fee')
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst();
}
