import { sql } from 'kysely';
import { type DialectName, forUpdateSkipLocked } from '../../db/dialect.js';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { inTenant, inTenantGroup, type TenantGroup } from '../../db/scoping.js';
import { addExact, toSafeInteger } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';
import { markCustomersRolled } from '../customers/index.js';
import { markTracksRolled } from '../tracks/index.js';
import { addTo, addToRollup, type RollupRow } from './rollups.folds.js';
import { STATUS_SOURCES, type StatusSource, statusUnrolled } from './rollups.marks.js';

/** Whose rows each source counts: their module marks them counted. */
const MARK_COUNTED: Record<
  StatusSource,
  (trx: Trx, status: string, rolledStatus: string, ids: readonly string[]) => Promise<number>
> = {
  plans: markTracksRolled,
  customers: markCustomersRolled,
};

/**
 * Counts up to `limit` plans or customers whose status changed since they were last counted (or never were) into
 * the rollup: one more for the status each has, one fewer for the status it was counted with. The rows are taken
 * with their locks, skipping those another transaction holds (a payment holds its plan's): two folds at once never
 * wait on each other's rows, which marking many rows in one statement each did (a deadlock on PostgreSQL when two
 * test clock advances folded the same plans). Each mark is still set on condition that the row is as it was read,
 * and only the rows so marked are counted. Returns how many were read.
 */
export async function foldStatuses(
  trx: Trx,
  dialect: DialectName,
  group: TenantGroup,
  limit: number,
  source: StatusSource,
) {
  const { table } = STATUS_SOURCES[source];
  const rows = await forUpdateSkipLocked(
    dialect,
    trx
      .selectFrom(table)
      .select(['id', 'workspace_id', 'mode', 'status', sql<string>`rolled_status`.as('rolled_status')])
      .where(inTenantGroup(group))
      .where(statusUnrolled(source))
      .orderBy('workspace_id')
      .orderBy('mode')
      .limit(limit),
  ).execute();
  const changes = new Map<string, { row: (typeof rows)[number]; ids: string[] }>();
  for (const row of rows) {
    const key = [row.workspace_id, row.mode, row.status, row.rolled_status].join('\u0000');
    const change = changes.get(key) ?? { row, ids: [] };
    change.ids.push(row.id);
    changes.set(key, change);
  }
  const rollup = new Map<string, RollupRow>();
  for (const { row, ids } of changes.values()) {
    const marked = await MARK_COUNTED[source](trx, row.status, row.rolled_status, ids);
    const tally = {
      workspace_id: row.workspace_id,
      mode: row.mode,
      source,
      slot: '',
      currency: '',
      amount: 0,
    };
    addTo(rollup, { ...tally, kind: row.status, count: marked });
    if (row.rolled_status !== '') addTo(rollup, { ...tally, kind: row.rolled_status, count: -marked });
  }
  await addToRollup(trx, rollup);
  return rows.length;
}

/** How many plans or customers of a tenant have each status now: the rollup's counts and the rows not counted as they are. */
export async function statusCounts(db: DbOrTrx, tenant: TenantRef, source: StatusSource) {
  const counts = new Map<string, number>();
  const add = (status: string, n: string | number) =>
    counts.set(status, addExact(counts.get(status) ?? 0, toSafeInteger(n)));
  const folded = await db
    .selectFrom('report_rollups')
    .select(['kind', sql<string | number>`sum(count)`.as('count')])
    .where(inTenant(tenant))
    .where('source', '=', source)
    .groupBy('kind')
    .execute();
  for (const row of folded) add(row.kind, row.count);
  const unfolded = await db
    .selectFrom(STATUS_SOURCES[source].table)
    .select([
      'status',
      sql<string>`rolled_status`.as('rolled_status'),
      sql<string | number>`count(*)`.as('count'),
    ])
    .where(inTenant(tenant))
    .where(statusUnrolled(source))
    .groupBy(['status', sql`rolled_status`])
    .execute();
  for (const row of unfolded) {
    add(row.status, row.count);
    if (row.rolled_status !== '') add(row.rolled_status, -toSafeInteger(row.count));
  }
  return counts;
}
