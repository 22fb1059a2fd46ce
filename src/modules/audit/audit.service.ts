import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { rowsOf } from '../../db/shaped-statements.js';
import { carryToCommit } from '../../db/unit-of-work.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { instantRange } from '../../lib/instant.js';
import type { Tenant } from '../../lib/tenant.js';
import * as repo from './audit.repository.js';
import type { AuditEntry, AuditListQuery } from './audit.schemas.js';
import type { ActorType, AuditEntriesTable } from './audit.table.js';

export type { ActorType } from './audit.table.js';

export interface AuditChange {
  actor: { type: ActorType; id: string | null };
  action: string;
  record: { type: string | null; id: string | null };
  changes: Record<string, [unknown, unknown]>;
  reason?: string | null;
  requestId?: string | null;
}

/** Writes one entry of the audit trail, in the caller's transaction when it has one. */
export async function recordAudit(db: DbOrTrx, tenant: Tenant, change: AuditChange): Promise<void> {
  const at = tenant.clock.now();
  const write = repo.insertQuery(db, {
    id: newId('auditEntry', at),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    actor_type: change.actor.type,
    actor_id: change.actor.id,
    action: change.action,
    record_type: change.record.type,
    record_id: change.record.id,
    changes: JSON.stringify(change.changes),
    reason: change.reason ?? null,
    request_id: change.requestId ?? null,
    created_at: at.toISOString(),
  });
  // In a unit whose last statement goes with the commit, the entry goes in that statement.
  if (!carryToCommit(db, write)) await rowsOf(db, write);
}

function toApi(row: AuditEntriesTable): AuditEntry {
  return {
    id: row.id,
    actor: { type: row.actor_type, id: row.actor_id },
    action: row.action,
    record: { type: row.record_type, id: row.record_id },
    changes: JSON.parse(row.changes) as AuditEntry['changes'],
    reason: row.reason,
    requestId: row.request_id,
    createdAt: row.created_at,
  };
}

/** The audit trail, newest first, by actor, record and time. */
export function listAudit(ctx: AppContext, tenant: Tenant, query: AuditListQuery): Promise<Page<AuditEntry>> {
  const filter = {
    ...instantRange(query),
    ...(query.actor_id ? { actorId: query.actor_id } : {}),
    ...(query.record_id ? { recordId: query.record_id } : {}),
  };
  return paginate(
    query,
    'auditEntry',
    (limit, afterId) => repo.list(ctx.db, tenant, { ...filter, limit }, afterId),
    toApi,
  );
}
