import type { DbOrTrx } from '../../db/schema.js';
import { inTenant, inTenantGroup, type TenantGroup } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';
import { LEDGER_ENTRY_COLUMNS } from '../ledger/ledger.mapper.js';
import { PAYMENT_SUMMARY_COLUMNS } from '../payments/payments.mapper.js';
import type { ExportStatus, ReportExportsTable } from './exports.table.js';

export function insert(db: DbOrTrx, row: ReportExportsTable) {
  return db.insertInto('report_exports').values(row).execute();
}

export function findById(db: DbOrTrx, tenant: TenantRef, id: string) {
  return db
    .selectFrom('report_exports')
    .selectAll()
    .where('id', '=', id)
    .where(inTenant(tenant))
    .executeTakeFirst();
}

/** A tenant's latest exports, newest first. */
export function listRecent(db: DbOrTrx, tenant: TenantRef, limit: number) {
  return db
    .selectFrom('report_exports')
    .selectAll()
    .where(inTenant(tenant))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** An export by id alone: for its download link, which names no tenant (its signature vouches for the id). */
export function findForDownload(db: DbOrTrx, id: string) {
  return db.selectFrom('report_exports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes an export only while it is in one of `from`; undefined when it was not. */
export function updateIn(
  db: DbOrTrx,
  id: string,
  from: readonly ExportStatus[],
  changes: Partial<ReportExportsTable>,
) {
  return db
    .updateTable('report_exports')
    .set(changes)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** The progress of a running export: one statement per batch written. */
export async function recordProgress(db: DbOrTrx, id: string, rows: number, now: string): Promise<void> {
  await db
    .updateTable('report_exports')
    .set({ rows_written: rows, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute();
}

/** Done exports of a tenant group whose link expired and whose file is still kept, oldest expiry first. */
export function expiredFiles(db: DbOrTrx, group: TenantGroup, now: string, limit: number) {
  return db
    .selectFrom('report_exports')
    .select(['id', 'workspace_id', 'storage_key'])
    .where(inTenantGroup(group))
    .where('expires_at', '<=', now)
    .where('file_removed_at', 'is', null)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** When the next download link of a tenant group expires after `now` (its file is then removed); null if none. */
export async function nextExpiredFile(db: DbOrTrx, group: TenantGroup, now: string): Promise<string | null> {
  const row = await db
    .selectFrom('report_exports')
    .select((eb) => eb.fn.min('expires_at').as('next'))
    .where(inTenantGroup(group))
    .where('expires_at', '>', now)
    .where('file_removed_at', 'is', null)
    .executeTakeFirst();
  return row?.next ?? null;
}

export async function markFileRemoved(db: DbOrTrx, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('report_exports')
    .set({ file_removed_at: now, updated_at: now })
    .where('id', '=', id)
    .where('file_removed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** An export's range of instants, either end open; `to` is excluded. */
export interface ExportRange {
  from: string | null;
  to: string | null;
}

// Exports read payments and ledger entries (never write them), with the columns their modules' mappers take.

function paymentsIn(db: DbOrTrx, tenant: TenantRef, range: ExportRange) {
  let q = db.selectFrom('payments').where(inTenant(tenant));
  if (range.from) q = q.where('paid_at', '>=', range.from);
  if (range.to) q = q.where('paid_at', '<', range.to);
  return q;
}

function ledgerEntriesIn(db: DbOrTrx, tenant: TenantRef, range: ExportRange) {
  let q = db.selectFrom('ledger_entries').where(inTenant(tenant));
  if (range.from) q = q.where('occurred_at', '>=', range.from);
  if (range.to) q = q.where('occurred_at', '<', range.to);
  return q;
}

/** How many payments have `paid_at` in the range. */
export async function paymentCount(db: DbOrTrx, tenant: TenantRef, range: ExportRange): Promise<number> {
  const counted = await paymentsIn(db, tenant, range)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}

/** The next `limit` payments in the range in id order, after the id `after` (from the first when null). */
export function paymentsAfter(
  db: DbOrTrx,
  tenant: TenantRef,
  range: ExportRange,
  after: string | null,
  limit: number,
) {
  const q = paymentsIn(db, tenant, range).select(PAYMENT_SUMMARY_COLUMNS);
  return (after === null ? q : q.where('id', '>', after)).orderBy('id').limit(limit).execute();
}

/** How many ledger entries have `occurred_at` in the range. */
export async function ledgerEntryCount(db: DbOrTrx, tenant: TenantRef, range: ExportRange): Promise<number> {
  const counted = await ledgerEntriesIn(db, tenant, range)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}

/** The next `limit` ledger entries in the range in id order, after the id `after` (from the first when null). */
export function ledgerEntriesAfter(
  db: DbOrTrx,
  tenant: TenantRef,
  range: ExportRange,
  after: string | null,
  limit: number,
) {
  const q = ledgerEntriesIn(db, tenant, range).select(LEDGER_ENTRY_COLUMNS);
  return (after === null ? q : q.where('id', '>', after)).orderBy('id').limit(limit).execute();
}
