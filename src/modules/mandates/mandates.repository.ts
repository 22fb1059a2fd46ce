import { type ExpressionBuilder, sql } from 'kysely';
import { type DialectName, forUpdate } from '../../db/dialect.js';
import type { Database, DbOrTrx } from '../../db/schema.js';
import { inTenant, inTenantGroup, newestFirst, type TenantGroup } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { MandateListQuery } from './mandates.schemas.js';
import type { MandateStatus, MandatesTable } from './mandates.table.js';

/**
 * A pending mandate still waiting for the payer's answer: not consented yet, or consented and sent to a real
 * provider's authorization that has not confirmed it. Either expires with its consent link.
 */
const unanswered = (eb: ExpressionBuilder<Database, 'mandates'>) =>
  eb.or([eb('consented_at', 'is', null), eb('authorization_reference', 'is not', null)]);

export function insert(db: DbOrTrx, row: MandatesTable) {
  return db.insertInto('mandates').values(row).execute();
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('mandates')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** The mandate, locked until the transaction ends (PostgreSQL): a revoke waits for its activation. */
export function findByIdForUpdate(db: DbOrTrx, dialect: DialectName, tenant: TenantRef, id: string) {
  return forUpdate(
    dialect,
    db.selectFrom('mandates').selectAll().where('id', '=', id).where(inTenant(tenant)),
  ).executeTakeFirst();
}

/** The mandate a consent URL's token belongs to (its hash), whatever its workspace: the page has no key. */
export function findByConsentToken(db: DbOrTrx, tokenHash: string) {
  return db.selectFrom('mandates').selectAll().where('consent_token_hash', '=', tokenHash).executeTakeFirst();
}

/** Changes a mandate only while it is in one of `from`; no row when it is missing or in another state. */
export function updateIn(
  db: DbOrTrx,
  tenant: TenantRef,
  id: string,
  from: readonly MandateStatus[],
  changes: Partial<MandatesTable>,
  extra: {
    awaitingConsent?: boolean;
    awaitingAnswer?: boolean;
    consented?: boolean;
    formTokenHash?: string;
  } = {},
) {
  let q = db
    .updateTable('mandates')
    .set(changes)
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', 'in', from);
  if (extra.awaitingConsent) q = q.where('consented_at', 'is', null);
  if (extra.awaitingAnswer) q = q.where(unanswered);
  if (extra.consented) q = q.where('consented_at', 'is not', null);
  if (extra.formTokenHash !== undefined) q = q.where('form_token_hash', '=', extra.formTokenHash);
  return q.returningAll().executeTakeFirst();
}

export function list(
  db: DbOrTrx,
  tenant: TenantRef,
  query: MandateListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db.selectFrom('mandates').selectAll().where(inTenant(tenant));
  if (query.status) q = q.where('status', '=', query.status);
  if (query.payer_id) q = q.where('payer_id', '=', query.payer_id);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

/** Pending mandates of a tenant group whose consent window closed without an answer. */
export function expiring(db: DbOrTrx, group: TenantGroup, now: string, limit: number) {
  return db
    .selectFrom('mandates')
    .select(['id', 'workspace_id'])
    .where(inTenantGroup(group))
    .where('status', '=', 'pending')
    .where(unanswered)
    .where('consent_expires_at', '<=', now)
    .orderBy('consent_expires_at')
    .limit(limit)
    .execute();
}

/** When the next unanswered consent of a tenant group expires after `now`; null when none will. */
export async function nextExpiring(db: DbOrTrx, group: TenantGroup, now: string): Promise<string | null> {
  const row = await db
    .selectFrom('mandates')
    .select((eb) => eb.fn.min('consent_expires_at').as('next'))
    .where(inTenantGroup(group))
    .where('status', '=', 'pending')
    .where(unanswered)
    .where('consent_expires_at', '>', now)
    .executeTakeFirst();
  return row?.next ?? null;
}

/**
 * Consented mandates of a tenant group that may become active: in test mode all, in live mode those whose
 * provider has approved the workspace (they wait for their registration with the provider).
 */
export function awaitingActivation(db: DbOrTrx, group: TenantGroup, limit: number) {
  let q = db
    .selectFrom('mandates')
    .select(['id', 'workspace_id'])
    .where(inTenantGroup(group))
    .where('status', '=', 'pending')
    .where('consented_at', 'is not', null)
    // Sent to a real provider's authorization: active when the provider confirms, not by registration.
    .where('authorization_reference', 'is', null);
  if (group.mode === 'live') {
    q = q.where(
      sql<boolean>`exists (select 1 from provider_settings s where s.workspace_id = mandates.workspace_id and s.mode = mandates.mode and s.provider = mandates.provider and s.approved = 1)`,
    );
  }
  return q.orderBy('consented_at').limit(limit).execute();
}

/**
 * Consented live mandates of a provider that wait for its approval, in the order the payers consented: activated
 * in that order, the last consent of a schedule is the one left active.
 */
export function awaitingApproval(db: DbOrTrx, tenant: TenantRef, provider: string) {
  return db
    .selectFrom('mandates')
    .select('id')
    .where(inTenant(tenant))
    .where('provider', '=', provider)
    .where('status', '=', 'pending')
    .where('consented_at', 'is not', null)
    .orderBy('consented_at')
    .orderBy('id')
    .execute();
}

/** The schedule's active mandates other than `exceptId`, made `replaced` by it; the rows as they are now. */
export function replaceActive(
  db: DbOrTrx,
  tenant: TenantRef,
  scheduleId: string,
  exceptId: string,
  now: string,
) {
  return db
    .updateTable('mandates')
    .set({ status: 'replaced', replaced_at: now, replaced_by: exceptId, updated_at: now })
    .where(inTenant(tenant))
    .where('schedule_id', '=', scheduleId)
    .where('status', '=', 'active')
    .where('id', '<>', exceptId)
    .returningAll()
    .execute();
}

/**
 * The mandate a schedule's collections run on: its active one (there is at most one), else its newest consented
 * one still waiting for the provider's approval (not to be charged: its attempts wait, blocked). Undefined when
 * it has neither: a revoked, replaced, failed or expired mandate is never returned.
 */
export function forCollection(db: DbOrTrx, tenant: TenantRef, scheduleId: string) {
  return db
    .selectFrom('mandates')
    .selectAll()
    .where(inTenant(tenant))
    .where('schedule_id', '=', scheduleId)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'active'),
        eb.and([eb('status', '=', 'pending'), eb('consented_at', 'is not', null)]),
      ]),
    )
    .orderBy(sql`case when status = 'active' then 0 else 1 end`)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The mandate whose payer was sent to the provider's hosted authorization under this reference. */
export function findByAuthorizationReference(db: DbOrTrx, tenant: TenantRef, reference: string) {
  return db
    .selectFrom('mandates')
    .selectAll()
    .where(inTenant(tenant))
    .where('authorization_reference', '=', reference)
    .executeTakeFirst();
}
