import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, inTenantGroup, newestFirst, type TenantGroup } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { ReminderListQuery, ReminderLogListQuery } from './reminders.schemas.js';
import type { ReminderLogsTable, ReminderStatus, RemindersTable } from './reminders.table.js';

/** Inserts a reminder; false when its obligation already has one for that stage (another worker made it). */
export async function insert(db: DbOrTrx, row: RemindersTable): Promise<boolean> {
  const result = await db
    .insertInto('reminders')
    .values(row)
    .onConflict((oc) => oc.columns(['obligation_id', 'stage']).where('stage', 'is not', null).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export function insertLog(db: DbOrTrx, row: ReminderLogsTable) {
  return db.insertInto('reminder_logs').values(row).execute();
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('reminders')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

export function findMany(db: DbOrTrx, tenant: TenantRef, ids: readonly string[]) {
  return db.selectFrom('reminders').selectAll().where('id', 'in', ids).where(inTenant(tenant)).execute();
}

/** Changes a reminder only while it is in one of `from` (and, when given, still held under `claimedUntil`). */
export function updateIn(
  db: DbOrTrx,
  id: string,
  from: readonly ReminderStatus[],
  changes: Partial<RemindersTable>,
  claimedUntil?: string,
) {
  let q = db.updateTable('reminders').set(changes).where('id', '=', id).where('status', 'in', from);
  if (claimedUntil !== undefined) q = q.where('claimed_until', '=', claimedUntil);
  return q.returningAll().executeTakeFirst();
}

/**
 * Takes a queued reminder whose time has come for one delivery try, until `until`: no other worker takes it
 * meanwhile. Undefined when it is not queued, not due, or held by another.
 */
export function claim(db: DbOrTrx, id: string, now: string, until: string) {
  return db
    .updateTable('reminders')
    .set({ claimed_until: until })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .where('next_try_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .returningAll()
    .executeTakeFirst();
}

export function list(
  db: DbOrTrx,
  tenant: TenantRef,
  query: ReminderListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db.selectFrom('reminders').selectAll().where(inTenant(tenant));
  if (query.status) q = q.where('status', '=', query.status);
  if (query.channel) q = q.where('channel', '=', query.channel);
  if (query.source) q = q.where('source', '=', query.source);
  if (query.customerId) q = q.where('customer_id', '=', query.customerId);
  if (query.trackId) q = q.where('track_id', '=', query.trackId);
  if (query.obligationId) q = q.where('obligation_id', '=', query.obligationId);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

export function listLogs(
  db: DbOrTrx,
  tenant: TenantRef,
  query: ReminderLogListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db.selectFrom('reminder_logs').selectAll().where(inTenant(tenant));
  if (query.reminderId) q = q.where('reminder_id', '=', query.reminderId);
  if (query.status) q = q.where('status', '=', query.status);
  if (query.channel) q = q.where('channel', '=', query.channel);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

/** Queued reminders of a tenant group whose next try has come. */
export function dueToSend(db: DbOrTrx, group: TenantGroup, now: string, limit: number) {
  return db
    .selectFrom('reminders')
    .select(['id', 'workspace_id'])
    .where(inTenantGroup(group))
    .where('next_try_at', '<=', now)
    .where('status', '=', 'queued')
    .orderBy('next_try_at')
    .limit(limit)
    .execute();
}

/**
 * What the send sweep takes next after `now`: the earliest try of a queued reminder after it, and the earliest
 * claim on one that ends after it (a worker stopped mid-send: the reminder is taken again then).
 */
export async function nextToSend(db: DbOrTrx, group: TenantGroup, now: string) {
  const tryAt = await db
    .selectFrom('reminders')
    .select((eb) => eb.fn.min('next_try_at').as('next'))
    .where(inTenantGroup(group))
    .where('status', '=', 'queued')
    .where('next_try_at', '>', now)
    .executeTakeFirst();
  const claimEnds = await db
    .selectFrom('reminders')
    .select((eb) => eb.fn.min('claimed_until').as('next'))
    .where(inTenantGroup(group))
    .where('status', '=', 'queued')
    .where('claimed_until', '>', now)
    .executeTakeFirst();
  return { tryAt: tryAt?.next ?? null, claimEnds: claimEnds?.next ?? null };
}

/** Queued reminders of a tenant whose send time has come, for `POST /reminders/send` without ids. */
export function dueOfTenant(db: DbOrTrx, tenant: TenantRef, now: string, limit: number) {
  return db
    .selectFrom('reminders')
    .select('id')
    .where(inTenant(tenant))
    .where('status', '=', 'queued')
    .where('send_at', '<=', now)
    .orderBy('send_at')
    .limit(limit)
    .execute();
}

/** Automatic messages that went to a customer since an instant (handed over, whatever became of them after). */
export async function automaticMessagesSince(
  db: DbOrTrx,
  tenant: TenantRef,
  customerId: string,
  since: string,
) {
  const row = await db
    .selectFrom('reminder_logs')
    .innerJoin('reminders', 'reminders.id', 'reminder_logs.reminder_id')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('reminders.workspace_id', '=', tenant.workspaceId)
    .where('reminders.mode', '=', tenant.mode)
    .where('reminders.customer_id', '=', customerId)
    .where('reminders.source', '=', 'schedule')
    .where('reminder_logs.status', 'in', ['sent', 'delivered', 'undelivered', 'simulated'])
    .where('reminder_logs.created_at', '>', since)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
