import { sql } from 'kysely';
import { type DialectName, forUpdateSkipLocked } from '../db/dialect.js';
import type { DbOrTrx } from '../db/schema.js';
import type { JobStatus, JobsTable } from './jobs.table.js';

export interface Candidate {
  id: string;
  name: string;
  group_key: string | null;
  status: JobStatus;
}

/** Jobs running under a live lease, per group: what the group concurrency limits count. */
export async function runningByGroup(db: DbOrTrx, now: string) {
  const rows = await db
    .selectFrom('jobs')
    .select(['group_key', 'name', sql<number>`count(*)`.as('running')])
    .where('status', '=', 'running')
    .where('locked_until', '>', now)
    .where('group_key', 'is not', null)
    .groupBy(['group_key', 'name'])
    .execute();
  return rows.map((row) => ({
    groupKey: row.group_key as string,
    name: row.name,
    running: Number(row.running),
  }));
}

/**
 * Due jobs this worker knows, oldest first: pending ones whose time has come and running ones whose lease
 * expired (their worker died). A job of another version is left to a worker that knows it. Jobs of
 * `fullGroups` are left out, so a group at its limit never fills the batch.
 */
export function dueCandidates(
  trx: DbOrTrx,
  dialect: DialectName,
  known: readonly string[],
  now: string,
  fullGroups: readonly string[],
  limit: number,
): Promise<Candidate[]> {
  let query = trx
    .selectFrom('jobs')
    .select(['id', 'name', 'group_key', 'status'])
    .where('name', 'in', known)
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)]),
        eb.and([eb('status', '=', 'running'), eb('locked_until', '<=', now)]),
      ]),
    );
  if (fullGroups.length > 0) {
    query = query.where((eb) => eb.or([eb('group_key', 'is', null), eb('group_key', 'not in', fullGroups)]));
  }
  return forUpdateSkipLocked(dialect, query.orderBy('run_at').orderBy('id').limit(limit)).execute();
}

export function markRunning(
  trx: DbOrTrx,
  ids: readonly string[],
  lease: { by: string; until: string; now: string },
) {
  return trx
    .updateTable('jobs')
    .set((eb) => ({
      status: 'running',
      attempts: eb('attempts', '+', 1),
      locked_by: lease.by,
      locked_until: lease.until,
      updated_at: lease.now,
    }))
    .where('id', 'in', ids)
    .returningAll()
    .execute();
}

export interface Held {
  id: string;
  token: string;
}

/** Extends the leases still held; returns the ids whose lease was lost (taken over after it expired). */
export async function renewLeases(db: DbOrTrx, held: readonly Held[], until: string): Promise<Set<string>> {
  if (held.length === 0) return new Set();
  const renewed = await db
    .updateTable('jobs')
    .set({ locked_until: until })
    .where('status', '=', 'running')
    .where((eb) => eb.or(held.map((h) => eb.and([eb('id', '=', h.id), eb('locked_by', '=', h.token)]))))
    .returning('id')
    .execute();
  const kept = new Set(renewed.map((row) => row.id));
  return new Set(held.filter((h) => !kept.has(h.id)).map((h) => h.id));
}

/** Deletes finished jobs still held under their lease; returns the ids it deleted. */
export async function deleteDone(trx: DbOrTrx, held: readonly Held[]): Promise<Set<string>> {
  if (held.length === 0) return new Set();
  const deleted = await trx
    .deleteFrom('jobs')
    .where('status', '=', 'running')
    .where((eb) => eb.or(held.map((h) => eb.and([eb('id', '=', h.id), eb('locked_by', '=', h.token)]))))
    .returning('id')
    .execute();
  return new Set(deleted.map((row) => row.id));
}

/** Leaves a held job in a new state (pending again, or failed); false when the lease was lost meanwhile. */
export async function release(
  trx: DbOrTrx,
  held: Held,
  changes: Pick<JobsTable, 'status' | 'run_at' | 'last_error' | 'attempts' | 'updated_at'>,
): Promise<boolean> {
  const result = await trx
    .updateTable('jobs')
    .set({ ...changes, locked_by: null, locked_until: null })
    .where('id', '=', held.id)
    .where('locked_by', '=', held.token)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export function listJobs(db: DbOrTrx, status: JobStatus | undefined, limit: number) {
  let query = db.selectFrom('jobs').selectAll();
  if (status) query = query.where('status', '=', status);
  return query.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function countByStatus(db: DbOrTrx) {
  const rows = await db
    .selectFrom('jobs')
    .select(['status', sql<number>`count(*)`.as('n')])
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)])) as Partial<
    Record<JobStatus, number>
  >;
}

export function deleteFailedBefore(db: DbOrTrx, before: string) {
  return db.deleteFrom('jobs').where('status', '=', 'failed').where('updated_at', '<', before).execute();
}
