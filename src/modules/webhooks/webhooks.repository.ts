import { type DialectName, forUpdate } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { WebhookDeliveryListQuery, WebhookEndpointListQuery } from './webhooks.schemas.js';
import type {
  WebhookDeliveriesTable,
  WebhookEndpointStatus,
  WebhookEndpointsTable,
} from './webhooks.table.js';

export function insertEndpoint(db: DbOrTrx, row: WebhookEndpointsTable) {
  return db.insertInto('webhook_endpoints').values(row).execute();
}

export function findEndpoint(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** The endpoint with its row locked until the transaction ends (PostgreSQL), for state changes. */
export function findEndpointForUpdate(trx: DbOrTrx, dialect: DialectName, tenant: TenantRef, id: string) {
  return forUpdate(
    dialect,
    trx.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).where(inTenant(tenant)),
  ).executeTakeFirst();
}

/**
 * What a batch of deliveries needs, in one query: for each (event, endpoint) pair, the endpoint and the event
 * when the event belongs to the endpoint's workspace and mode; undefined for a pair that has vanished. For
 * jobs, which hold ids from their own payload rather than a request's tenant.
 */
export async function findDeliveries(db: DbOrTrx, pairs: readonly { eventId: string; endpointId: string }[]) {
  if (pairs.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_endpoints as w')
    .innerJoin('events as e', (join) =>
      join.onRef('e.workspace_id', '=', 'w.workspace_id').onRef('e.mode', '=', 'w.mode'),
    )
    .select([
      'w.id as endpoint_id',
      'w.url',
      'w.secret',
      'w.status as endpoint_status',
      'e.id',
      'e.workspace_id',
      'e.mode',
      'e.type',
      'e.data',
      'e.previous_attributes',
      'e.created_at',
      'e.dispatched_at',
    ])
    .where('w.id', 'in', [...new Set(pairs.map((p) => p.endpointId))])
    .where('e.id', 'in', [...new Set(pairs.map((p) => p.eventId))])
    .execute();
  const found = new Map(
    rows.map(({ endpoint_id, url, secret, endpoint_status, ...event }) => [
      `${event.id}|${endpoint_id}`,
      { endpoint: { id: endpoint_id, url, secret, status: endpoint_status }, event },
    ]),
  );
  return pairs.map((pair) => found.get(`${pair.eventId}|${pair.endpointId}`));
}

/** Changes the endpoint, only while its status is still `from` when given; no row otherwise. */
export function updateEndpoint(
  db: DbOrTrx,
  tenant: TenantRef,
  id: string,
  changes: Partial<WebhookEndpointsTable>,
  from?: WebhookEndpointStatus,
) {
  let q = db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).where(inTenant(tenant));
  if (from) q = q.where('status', '=', from);
  return q.returningAll().executeTakeFirst();
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether more follow. */
export function listEndpoints(
  db: DbOrTrx,
  tenant: TenantRef,
  query: WebhookEndpointListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db.selectFrom('webhook_endpoints').selectAll().where(inTenant(tenant));
  if (query.status) q = q.where('status', '=', query.status);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

/** Enabled endpoints of these workspaces, both modes: the relay matches them to events. */
export function enabledEndpointsOf(db: DbOrTrx, workspaceIds: readonly string[]) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', 'in', workspaceIds)
    .where('status', '=', 'enabled')
    .orderBy('id')
    .execute();
}

export async function countEnabledEndpoints(db: DbOrTrx, tenant: TenantRef): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(inTenant(tenant))
    .where('status', '=', 'enabled')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertDeliveries(db: DbOrTrx, rows: readonly WebhookDeliveriesTable[]) {
  return db
    .insertInto('webhook_deliveries')
    .values([...rows])
    .execute();
}

/** Attempts of one endpoint, newest first, `limit + 1` rows. */
export function listDeliveries(
  db: DbOrTrx,
  tenant: TenantRef,
  endpointId: string,
  query: WebhookDeliveryListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where(inTenant(tenant));
  if (query.status) q = q.where('status', '=', query.status);
  if (query.eventId) q = q.where('event_id', '=', query.eventId);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}
