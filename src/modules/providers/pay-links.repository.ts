import { sql } from 'kysely';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { PayLinkCheckoutsTable, PayLinkStatus, PayLinksTable } from './pay-links.table.js';

export function insert(db: DbOrTrx, row: PayLinksTable) {
  return db.insertInto('pay_links').values(row).execute();
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('pay_links')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** The link a page's token belongs to (its hash), whatever its workspace: the page has no key. */
export function findByTokenHash(db: DbOrTrx, tokenHash: string) {
  return db.selectFrom('pay_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** A plan's links, newest first; `status` as the API shows it at `now` (expired: active past its time). */
export function listOfTrack(
  db: DbOrTrx,
  tenant: TenantRef,
  trackId: string,
  query: { limit: number; status?: PayLinkStatus | undefined; now: string },
  afterId: string | undefined,
) {
  let q = db.selectFrom('pay_links').selectAll().where(inTenant(tenant)).where('track_id', '=', trackId);
  if (query.status === 'expired') q = q.where('status', '=', 'active').where('expires_at', '<=', query.now);
  else if (query.status === 'active')
    q = q.where('status', '=', 'active').where('expires_at', '>', query.now);
  else if (query.status) q = q.where('status', '=', query.status);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

/** Revokes a link still active at `now`; no row when it is missing, paid, revoked or expired. */
export function revoke(db: DbOrTrx, tenant: TenantRef, id: string, now: string) {
  return db
    .updateTable('pay_links')
    .set({ status: 'revoked', revoked_at: now })
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', '=', 'active')
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The link, locked for the rest of the transaction (a write of nothing: a row lock on both databases), so that
 * what is decided about it and its checkouts is decided once at a time.
 */
export function lock(trx: Trx, id: string) {
  return trx
    .updateTable('pay_links')
    .set({ status: sql`status` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Marks an active link paid by one of its checkouts; no row when it is no longer active. */
export function markPaid(
  trx: Trx,
  id: string,
  paid: Pick<
    PayLinksTable,
    | 'paid_at'
    | 'payment_id'
    | 'amount_paid'
    | 'checkout_id'
    | 'checkout_provider'
    | 'checkout_provider_reference'
  >,
) {
  return trx
    .updateTable('pay_links')
    .set({ ...paid, status: 'paid' })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .returningAll()
    .executeTakeFirst();
}

export function insertCheckout(db: DbOrTrx, row: PayLinkCheckoutsTable) {
  return db.insertInto('pay_link_checkouts').values(row).execute();
}

/** A pay link's checkout by its id, whatever its workspace (the checkout pages and return page have no key). */
export function findCheckout(db: DbOrTrx, checkoutId: string) {
  return db
    .selectFrom('pay_link_checkouts')
    .selectAll()
    .where('checkout_id', '=', checkoutId)
    .executeTakeFirst();
}

/** Keeps that a checkout's money was recorded, once: no row when it already was. */
export function completeCheckout(trx: Trx, checkoutId: string, now: string, paymentId: string) {
  return trx
    .updateTable('pay_link_checkouts')
    .set({ completed_at: now, payment_id: paymentId })
    .where('checkout_id', '=', checkoutId)
    .where('completed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
