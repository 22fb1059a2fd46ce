import type { QueryCreator, UpdateQueryBuilder, UpdateResult } from 'kysely';
import { batchedById } from '../../db/batched-reads.js';
import type { Database, DbOrTrx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import { rowsOf, shaped } from '../../db/shaped-statements.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { PaymentListQuery } from './payments.schemas.js';
import type { PaymentsTable, RefundStatus } from './payments.table.js';

const insertStatement = shaped((db, row: PaymentsTable) => db.insertInto('payments').values(row));

export async function insert(db: DbOrTrx, row: PaymentsTable): Promise<void> {
  await rowsOf(db, insertStatement(db, row));
}

const receiptNumberStatement = shaped((db, tenant: TenantRef) => nextReceiptNumber(db, tenant));

/**
 * The workspace mode's next receipt number. The counter row stays locked until the caller's transaction ends,
 * so numbers follow commits with no gap: a transaction rolled back gives its number back.
 */
export async function takeReceiptNumber(trx: DbOrTrx, tenant: TenantRef): Promise<number> {
  const [row] = await rowsOf(
    trx,
    receiptNumberStatement(trx, { workspaceId: tenant.workspaceId, mode: tenant.mode }),
  );
  if (!row) throw new Error('the receipt counter returned no row');
  return Number(row.last_number);
}

/** The upsert that takes the workspace mode's next receipt number, for a statement of the caller's (a CTE). */
export function nextReceiptNumber(creator: QueryCreator<Database>, tenant: TenantRef) {
  return creator
    .insertInto('receipt_counters')
    .values({ workspace_id: tenant.workspaceId, mode: tenant.mode, last_number: 1 })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'mode'])
        .doUpdateSet((eb) => ({ last_number: eb('receipt_counters.last_number', '+', 1) })),
    )
    .returning('last_number');
}

/** The payment a receipt code belongs to, in any workspace: the code alone is what a receipt's reader holds. */
export function findByReceiptCode(db: DbOrTrx, code: string) {
  return db.selectFrom('payments').selectAll().where('receipt_code', '=', code).executeTakeFirst();
}

/** Reads outside a transaction that arrive together share one statement. */
export const findById = batchedById((db, tenant, ids) =>
  db.selectFrom('payments').selectAll().where('id', 'in', ids).where(inTenant(tenant)).execute(),
);

/** The payment whose reference compares equal (`referenceKey`). */
export function findByReferenceKey(db: DbOrTrx, tenant: TenantRef, key: string) {
  return db
    .selectFrom('payments')
    .select('id')
    .where(inTenant(tenant))
    .where('reference_key', '=', key)
    .executeTakeFirst();
}

/**
 * Marks a recorded payment reversed; no row when it is missing or not recorded. Its reference is free again: the
 * money it stood for is no longer counted, so the same bank reference may be recorded anew.
 */
export function markReversed(db: DbOrTrx, tenant: TenantRef, id: string, at: string, reason: string | null) {
  return db
    .updateTable('payments')
    .set({ status: 'reversed', reversed_at: at, reversal_reason: reason, reference_key: null })
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', '=', 'recorded')
    .returningAll()
    .executeTakeFirst();
}

/** An unapplied payment, still so, put on a plan (its allocations follow); no row when it is not unapplied any more. */
export function moveToPlan(
  db: DbOrTrx,
  tenant: TenantRef,
  id: string,
  plan: { trackId: string; customerId: string },
  metadata: string,
) {
  return unapplied(
    db.updateTable('payments').set({ track_id: plan.trackId, customer_id: plan.customerId, metadata }),
    tenant,
    id,
  )
    .returningAll()
    .executeTakeFirst();
}

/** An unapplied payment, still so, replaced by its parts; its reference goes to the first. No row when it is not unapplied any more. */
export function markSplit(db: DbOrTrx, tenant: TenantRef, id: string, parts: readonly string[]) {
  return unapplied(
    db
      .updateTable('payments')
      .set({ status: 'split', reference_key: null, split_into: JSON.stringify(parts) }),
    tenant,
    id,
  )
    .returningAll()
    .executeTakeFirst();
}

function unapplied<QB extends UpdateQueryBuilder<Database, 'payments', 'payments', UpdateResult>>(
  qb: QB,
  tenant: TenantRef,
  id: string,
): QB {
  return qb
    .where('id', '=', id)
    .where(inTenant(tenant))
    .where('status', '=', 'recorded')
    .where('track_id', 'is', null)
    .where('unapplied_reason', 'is not', null) as QB;
}

/** The payment's allocations as they now are (a reversal marks them undone). */
export function setAllocations(db: DbOrTrx, id: string, allocations: string) {
  return db
    .updateTable('payments')
    .set({ allocations })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function list(
  db: DbOrTrx,
  tenant: TenantRef,
  query: PaymentListQuery & { limit: number },
  afterId: string | undefined,
) {
  let q = db.selectFrom('payments').selectAll().where(inTenant(tenant));
  if (query.trackId) q = q.where('track_id', '=', query.trackId);
  if (query.customerId) q = q.where('customer_id', '=', query.customerId);
  if (query.method) q = q.where('method', '=', query.method);
  if (query.status) q = q.where('status', '=', query.status);
  if (query.unapplied === true)
    q = q
      .where('unapplied_reason', 'is not', null)
      .where('status', '=', 'recorded')
      .where('track_id', 'is', null);
  if (query.unapplied === false)
    q = q.where((eb) =>
      eb.or([
        eb('unapplied_reason', 'is', null),
        eb('status', '<>', 'recorded'),
        eb('track_id', 'is not', null),
      ]),
    );
  if (query.from) q = q.where('paid_at', '>=', query.from);
  if (query.to) q = q.where('paid_at', '<', query.to);
  return q.$call(newestFirst(afterId, query.limit)).execute();
}

/** The payment a provider took under its own reference (what its refund events name). */
export function findByProviderReference(db: DbOrTrx, tenant: TenantRef, provider: string, reference: string) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where(inTenant(tenant))
    .where('provider', '=', provider)
    .where('provider_reference', '=', reference)
    .orderBy('id')
    .executeTakeFirst();
}

/**
 * Records where a payment's refund stands, only while the payment is recorded and its refund in one of `from`
 * (null: none asked); no row otherwise.
 */
export function setRefund(
  db: DbOrTrx,
  tenant: TenantRef,
  id: string,
  from: readonly (RefundStatus | null)[],
  changes: Pick<PaymentsTable, 'refund_status'> &
    Partial<Pick<PaymentsTable, 'refund_provider_reference' | 'refund_failure_reason'>>,
) {
  const statuses = from.filter((status): status is RefundStatus => status !== null);
  return db
    .updateTable('payments')
    .set(changes)
    .where(inTenant(tenant))
    .where('id', '=', id)
    .where('status', '=', 'recorded')
    .where((eb) =>
      eb.or([
        ...(from.includes(null) ? [eb('refund_status', 'is', null)] : []),
        ...(statuses.length > 0 ? [eb('refund_status', 'in', statuses)] : []),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}
