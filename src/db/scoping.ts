import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Mode, TenantRef } from '../lib/tenant.js';

/**
 * The condition that keeps a query to one workspace and mode: `.where(inTenant(tenant))`. Every table of
 * tenant data has `workspace_id` and `mode`; isolation between workspaces and between test and live data
 * rests on this one condition.
 */
export function inTenant(tenant: TenantRef) {
  return sql<SqlBool>`(workspace_id = ${tenant.workspaceId} and mode = ${tenant.mode})`;
}

/** The tenants a sweep covers at once: one mode, then one workspace, or all of the mode but some. */
export interface TenantGroup {
  mode: Mode;
  workspaceId?: string;
  exceptWorkspaceIds?: readonly string[];
}

/** `inTenant` for a group of tenants that share one clock (sweeps). */
export function inTenantGroup(group: TenantGroup) {
  if (group.workspaceId !== undefined) return inTenant({ workspaceId: group.workspaceId, mode: group.mode });
  const except = group.exceptWorkspaceIds ?? [];
  if (except.length === 0) return sql<SqlBool>`(mode = ${group.mode})`;
  return sql<SqlBool>`(mode = ${group.mode} and workspace_id not in (${sql.join(except)}))`;
}

/** Newest first after `afterId`, one row more than the page so the caller knows whether more follow. */
export function newestFirst(afterId: string | undefined, limit: number) {
  return <DB, TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> =>
    (afterId ? qb.where(sql.ref('id'), '<', afterId) : qb).orderBy(sql.ref('id'), 'desc').limit(limit + 1);
}
