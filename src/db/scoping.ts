import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Tenant } from '../modules/tenant.js';

/**
 * The condition that keeps a query to one workspace and mode: `.where(inTenant(tenant))`. Every table of
 * tenant data has `workspace_id` and `mode`; isolation between workspaces and between test and live data
 * rests on this one condition.
 */
export function inTenant(tenant: Tenant) {
  return sql<SqlBool>`(workspace_id = ${tenant.workspaceId} and mode = ${tenant.mode})`;
}

/** Newest first after `afterId`, one row more than the page so the caller knows whether more follow. */
export function newestFirst(afterId: string | undefined, limit: number) {
  return <DB, TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> =>
    (afterId ? qb.where(sql.ref('id'), '<', afterId) : qb).orderBy(sql.ref('id'), 'desc').limit(limit + 1);
}
