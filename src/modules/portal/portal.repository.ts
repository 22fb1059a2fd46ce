import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { PortalLinksTable } from './portal.table.js';

export function insert(db: DbOrTrx, row: PortalLinksTable) {
  return db.insertInto('portal_links').values(row).execute();
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('portal_links')
    .selectAll()
    .where(inTenant(tenant))
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The link a token opens, in whatever workspace: the token alone is what its holder has. */
export function findByTokenHash(db: DbOrTrx, tokenHash: string) {
  return db.selectFrom('portal_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export function listOfCustomer(
  db: DbOrTrx,
  tenant: TenantRef,
  customerId: string,
  limit: number,
  afterId: string | undefined,
) {
  return db
    .selectFrom('portal_links')
    .selectAll()
    .where(inTenant(tenant))
    .where('customer_id', '=', customerId)
    .$call(newestFirst(afterId, limit))
    .execute();
}

/** Gives a link that is still good a new token (its hash); false when it is revoked, expired or missing. */
export async function setToken(db: DbOrTrx, tenant: TenantRef, id: string, tokenHash: string, now: string) {
  const result = await db
    .updateTable('portal_links')
    .set({ token_hash: tokenHash })
    .where(inTenant(tenant))
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Revokes a link not revoked yet; no row when it is missing or already revoked. */
export function revoke(db: DbOrTrx, tenant: TenantRef, id: string, at: string) {
  return db
    .updateTable('portal_links')
    .set({ revoked_at: at })
    .where(inTenant(tenant))
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Notes the page was opened, at most once a minute, so reading it costs no write each time. */
export function markOpened(db: DbOrTrx, id: string, at: string, notSince: string) {
  return db
    .updateTable('portal_links')
    .set({ last_opened_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_opened_at', 'is', null), eb('last_opened_at', '<', notSince)]))
    .execute();
}
