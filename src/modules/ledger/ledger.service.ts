import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { instantRange } from '../../lib/instant.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { toApi } from './ledger.mapper.js';
import * as repo from './ledger.repository.js';
import type { LedgerEntry, LedgerListQuery } from './ledger.schemas.js';
import type { LedgerEntriesTable, LedgerEntryType } from './ledger.table.js';

export type { LedgerEntryType } from './ledger.table.js';

export interface NewLedgerEntry {
  type: LedgerEntryType;
  trackId: string | null;
  customerId: string | null;
  amount: number;
  balanceAfter: number | null;
  currency: string;
  occurredAt?: string;
  refs?: Record<string, string>;
}

/** Appends an entry in the caller's transaction. Entries are never updated or deleted. */
export async function appendEntry(trx: DbOrTrx, tenant: Tenant, entry: NewLedgerEntry): Promise<void> {
  await repo.insert(trx, entryRow(tenant, entry));
}

/** Appends several entries in one statement, in order. */
export async function appendEntries(
  trx: DbOrTrx,
  tenant: Tenant,
  entries: readonly NewLedgerEntry[],
): Promise<void> {
  for (let i = 0; i < entries.length; i += INSERT_CHUNK) {
    await repo.insert(
      trx,
      entries.slice(i, i + INSERT_CHUNK).map((entry) => entryRow(tenant, entry)),
    );
  }
}

const INSERT_CHUNK = 200;

/** An entry's row at the tenant's time (the money core writes it in the statement that moves a balance). */
export function entryRow(tenant: Tenant, entry: NewLedgerEntry): LedgerEntriesTable {
  const at = tenant.clock.now();
  const now = at.toISOString();
  return {
    id: newId('ledgerEntry', at),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    type: entry.type,
    track_id: entry.trackId,
    customer_id: entry.customerId,
    amount: entry.amount,
    balance_after: entry.balanceAfter,
    currency: entry.currency,
    occurred_at: entry.occurredAt ?? now,
    refs: JSON.stringify(entry.refs ?? {}),
    created_at: now,
  };
}

export async function listLedger(
  ctx: AppContext,
  tenant: TenantRef,
  query: LedgerListQuery,
  scope: repo.LedgerScope = {},
): Promise<Page<LedgerEntry>> {
  const range = instantRange(query);
  return paginate(
    query,
    'ledgerEntry',
    (limit, afterId) => repo.list(ctx.db, tenant, scope, { ...query, ...range, limit }, afterId),
    toApi,
  );
}
