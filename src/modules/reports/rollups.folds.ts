import { sql } from 'kysely';
import { type DialectName, forUpdateSkipLocked } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import { inTenantGroup, type TenantGroup } from '../../db/scoping.js';
import { addExact, toSafeInteger } from '../../lib/money.js';
import { markLedgerEntriesRolledUp } from '../ledger/index.js';
import { markPaymentsRolled } from '../payments/index.js';
import { markObligationsRolled } from '../schedules/index.js';
import {
  LEDGER_UNROLLED,
  ledgerKind,
  OBLIGATION_UNROLLED,
  OWED_NOW,
  PAYMENT_UNROLLED,
} from './rollups.marks.js';
import { slotOf } from './rollups.slots.js';
import type { ReportRollupsTable } from './rollups.table.js';

/** The rows one fold takes at most: its ids fit in one statement on both databases. */
export const FOLD_BATCH = 5000;

export type RollupRow = ReportRollupsTable;

export function addTo(rollup: Map<string, RollupRow>, row: RollupRow) {
  const key = [row.workspace_id, row.mode, row.source, row.slot, row.currency, row.kind].join('\u0000');
  const found = rollup.get(key);
  if (found) {
    found.amount = addExact(found.amount, row.amount);
    found.count = addExact(found.count, row.count);
  } else rollup.set(key, { ...row });
}

/** Adds tallies to the rollup, in key order (two folds at once take row locks in the same order). */
export async function addToRollup(trx: Trx, rollup: Map<string, RollupRow>) {
  const rows = [...rollup.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  for (let i = 0; i < rows.length; i += 2000) {
    await trx
      .insertInto('report_rollups')
      .values(rows.slice(i, i + 2000))
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'mode', 'source', 'slot', 'currency', 'kind']).doUpdateSet({
          amount: sql`report_rollups.amount + excluded.amount`,
          count: sql`report_rollups.count + excluded.count`,
        }),
      )
      .execute();
  }
}

/**
 * Ends a fold: every row taken must have been marked (they are locked, so a shortfall means something changed
 * them: the transaction rolls back), then their tallies go into the rollup.
 */
async function settle(trx: Trx, rollup: Map<string, RollupRow>, marked: number, taken: number, what: string) {
  if (marked !== taken) throw new Error(`${what} changed while folded: ${marked} of ${taken} marked`);
  await addToRollup(trx, rollup);
  return taken;
}

/** Folds up to `limit` ledger entries not in the rollup yet into it, and marks them; returns how many. */
export async function foldLedgerEntries(trx: Trx, dialect: DialectName, group: TenantGroup, limit: number) {
  const rows = await forUpdateSkipLocked(
    dialect,
    trx
      .selectFrom('ledger_entries')
      .select(['id', 'workspace_id', 'mode', 'currency', 'type', 'track_id', 'amount', 'occurred_at'])
      .where(inTenantGroup(group))
      .where(LEDGER_UNROLLED)
      .limit(limit),
  ).execute();
  if (rows.length === 0) return 0;
  const rollup = new Map<string, RollupRow>();
  for (const row of rows) {
    addTo(rollup, {
      workspace_id: row.workspace_id,
      mode: row.mode,
      source: 'ledger',
      slot: slotOf(row.occurred_at),
      currency: row.currency,
      kind: ledgerKind(row.type, row.track_id),
      amount: row.amount,
      count: 1,
    });
  }
  const marked = await markLedgerEntriesRolledUp(
    trx,
    rows.map((r) => r.id),
  );
  return settle(trx, rollup, marked, rows.length, 'ledger entries');
}

/** Folds up to `limit` payments whose status changed since they were last folded (or never were); returns how many. */
export async function foldPayments(trx: Trx, dialect: DialectName, group: TenantGroup, limit: number) {
  const rows = await forUpdateSkipLocked(
    dialect,
    trx
      .selectFrom('payments')
      .select([
        'id',
        'workspace_id',
        'mode',
        'currency',
        'method',
        'amount',
        'paid_at',
        'status',
        sql<string>`rolled_status`.as('rolled_status'),
      ])
      .where(inTenantGroup(group))
      .where(PAYMENT_UNROLLED)
      .orderBy('workspace_id')
      .orderBy('mode')
      .orderBy(sql`rolled_status`)
      .orderBy('paid_at')
      .limit(limit),
  ).execute();
  if (rows.length === 0) return 0;
  const rollup = new Map<string, RollupRow>();
  const byStatus = new Map<(typeof rows)[number]['status'], string[]>();
  for (const row of rows) {
    const delta = (row.status === 'recorded' ? 1 : 0) - (row.rolled_status === 'recorded' ? 1 : 0);
    if (delta !== 0) {
      addTo(rollup, {
        workspace_id: row.workspace_id,
        mode: row.mode,
        source: 'payments',
        slot: slotOf(row.paid_at),
        currency: row.currency,
        kind: row.method,
        amount: row.amount * delta,
        count: delta,
      });
    }
    const ids = byStatus.get(row.status) ?? [];
    ids.push(row.id);
    byStatus.set(row.status, ids);
  }
  let marked = 0;
  for (const [status, ids] of byStatus) {
    marked += await markPaymentsRolled(trx, status, ids);
  }
  return settle(trx, rollup, marked, rows.length, 'payments');
}

/** Folds up to `limit` obligations whose owed amount changed since they were last folded; returns how many. */
export async function foldObligations(trx: Trx, dialect: DialectName, group: TenantGroup, limit: number) {
  const rows = await forUpdateSkipLocked(
    dialect,
    trx
      .selectFrom('obligations')
      .select([
        'id',
        'workspace_id',
        'mode',
        'currency',
        'due_date',
        OWED_NOW.as('owed'),
        sql<number>`rolled_owed`.as('rolled_owed'),
      ])
      .where(inTenantGroup(group))
      .where(OBLIGATION_UNROLLED)
      // In the order of the index of obligations not folded yet: PostgreSQL cannot estimate the condition, and
      // without an order that index gives, it reads the whole table to find none.
      .orderBy('workspace_id')
      .orderBy('mode')
      .orderBy('due_date')
      .limit(limit),
  ).execute();
  if (rows.length === 0) return 0;
  const rollup = new Map<string, RollupRow>();
  for (const row of rows) {
    addTo(rollup, {
      workspace_id: row.workspace_id,
      mode: row.mode,
      source: 'obligations',
      slot: row.due_date,
      currency: row.currency,
      kind: '',
      amount: toSafeInteger(row.owed) - toSafeInteger(row.rolled_owed),
      count: 0,
    });
  }
  const marked = await markObligationsRolled(
    trx,
    rows.map((r) => ({ id: r.id, owed: toSafeInteger(r.owed) })),
  );
  return settle(trx, rollup, marked, rows.length, 'obligations');
}
