import { type DialectName, forUpdate } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { Tenant } from '../tenant.js';
import type { WebhookDeliveryListQuery, WebhookEndpointListQuery } from './webhooks.schemas.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './webhooks.table.js';

export function insertEndpoint(db: DbOrTrx, row: WebhookEndpointsTable) {
  return db.insertInto('webhook_endpoints').values(row).execute();
}

export function findEndpoint(db: DbOrTrx, tenant: Tenant, id: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** The endpoint with its row locked until the transaction ends (PostgreSQL), for state changes. */
export function findEndpointForUpdate(trx: DbOrTrx, dialect: DialectName, tenant: Tenant, id: string) {
  return forUpdate(
    dialect,
    trx.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).where(inTenant(tenant)),
  ).executeTakeFirst();
}

/** For jobs, which hold an endpoint id from their own payload rather than a request's tenant. */
export function findEndpointById(db: DbOrTrx, id: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

export function updateEndpoint(
  db: DbOrTrx,
  tenant: Tenant,
  id: string,
  changes: Partial<WebhookEndpointsTable>,
) {
  return db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('id', '=', id)
    .where(inTenant(tenant))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether more follow. */
export function listEndpoints(
  db: DbOrTrx,
  tenant: Tenant,
  query: WebhookEndpointListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db.selectFrom('webhook_endpoints').selectAll().where(inTenant(tenant));
  if (query.status) q = q.where('status', '=', query.status);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

/** Enabled endpoints of the event's workspace and mode; the caller filters by subscribed type. */
export function enabledEndpoints(db: DbOrTrx, tenant: Tenant, onlyId?: string) {
  let q = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where(inTenant(tenant))
    .where('status', '=', 'enabled');
  if (onlyId) q = q.where('id', '=', onlyId);
  return q.orderBy('id').execute();
}

export async function countEnabledEndpoints(db: DbOrTrx, tenant: Tenant): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(inTenant(tenant))
    .where('status', '=', 'enabled')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether any endpoint of the tenant would receive events at all. */
export async function hasEnabledEndpoint(db: DbOrTrx, tenant: Tenant): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where(inTenant(tenant))
    .where('status', '=', 'enabled')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export function findEvent(db: DbOrTrx, id: string) {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertDelivery(db: DbOrTrx, row: WebhookDeliveriesTable) {
  return db.insertInto('webhook_deliveries').values(row).execute();
}

/** Attempts of one endpoint, newest first, `limit + 1` rows. */
export function listDeliveries(
  db: DbOrTrx,
  tenant: Tenant,
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
