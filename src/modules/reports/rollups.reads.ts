import { sql } from 'kysely';
import { type DialectName, quarterHourOf } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { toSafeInteger } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';
import { ledgerKind } from './rollups.marks.js';
import { type InstantRange, slotOf, splitRange } from './rollups.slots.js';
import type { RollupSource } from './rollups.table.js';

/** What a row adds to a currency and kind: a sum and a count (negative when a folded row is taken out). */
export interface Tally {
  currency: string;
  kind: string;
  amount: number;
  count: number;
}

/** A tally in one slot. */
export interface SlotTally extends Tally {
  slot: string;
}

const noPlan = sql<number>`case when track_id is null then 1 else 0 end`;

function tallies(
  rows: readonly { currency: string; kind: string; amount: string | number; count: string | number }[],
) {
  return rows.map((r) => ({
    currency: r.currency,
    kind: r.kind,
    amount: toSafeInteger(r.amount),
    count: toSafeInteger(r.count),
  }));
}

/** The rollup's rows of whole slots, or the deltas not folded into them yet (`table`). */
function rollupTotals(
  db: DbOrTrx,
  table: 'report_rollups' | 'rollup_deltas',
  tenant: TenantRef,
  source: RollupSource,
  whole: InstantRange,
) {
  let q = db
    .selectFrom(table as 'report_rollups')
    .where(inTenant(tenant))
    .where('source', '=', source)
    .where('slot', '<', slotOf(whole.to));
  if (whole.from) q = q.where('slot', '>=', slotOf(whole.from));
  return q;
}

const FOLDED_AND_NOT = ['report_rollups', 'rollup_deltas'] as const;

function ledgerRows(db: DbOrTrx, tenant: TenantRef, range: InstantRange) {
  let q = db.selectFrom('ledger_entries').where(inTenant(tenant)).where('occurred_at', '<', range.to);
  if (range.from) q = q.where('occurred_at', '>=', range.from);
  return q;
}

/**
 * Ledger totals per currency and kind of the entries that occurred before `end` (and at or after `from`), exact
 * at any moment when read in one snapshot: the rollup's whole slots with the deltas not folded in yet, and the
 * entries of the partial slots at the edges.
 */
export async function ledgerTotals(db: DbOrTrx, tenant: TenantRef, from: string | null, end: string) {
  const split = splitRange(from, end);
  const parts: Tally[] = [];
  if (split.whole) {
    for (const table of FOLDED_AND_NOT) {
      parts.push(
        ...tallies(
          await rollupTotals(db, table, tenant, 'ledger', split.whole)
            .select([
              'currency',
              'kind',
              sql<string | number>`sum(amount)`.as('amount'),
              sql<string | number>`sum(count)`.as('count'),
            ])
            .groupBy(['currency', 'kind'])
            .execute(),
        ),
      );
    }
  }
  for (const edge of split.edges) {
    const rows = await ledgerRows(db, tenant, edge)
      .select([
        'currency',
        'type',
        noPlan.as('no_plan'),
        sql<string | number>`coalesce(sum(amount), 0)`.as('amount'),
        sql<string | number>`count(*)`.as('count'),
      ])
      .groupBy(['currency', 'type', noPlan])
      .execute();
    parts.push(
      ...tallies(rows.map((r) => ({ ...r, kind: ledgerKind(r.type, Number(r.no_plan) === 1 ? null : '') }))),
    );
  }
  return parts;
}

function paymentRows(db: DbOrTrx, tenant: TenantRef, range: InstantRange) {
  let q = db.selectFrom('payments').where(inTenant(tenant)).where('paid_at', '<', range.to);
  if (range.from) q = q.where('paid_at', '>=', range.from);
  return q;
}

/**
 * Recorded (not reversed) payments paid in [from, end), per currency, method and slot; exact at any moment when
 * read in one snapshot. A slot's figures may net to nothing (a payment since reversed), and a slot may come
 * twice (from the rollup and from the deltas not folded in yet).
 */
export async function paymentSlots(
  db: DbOrTrx,
  dialect: DialectName,
  tenant: TenantRef,
  from: string | null,
  end: string,
): Promise<SlotTally[]> {
  const split = splitRange(from, end);
  const slot = quarterHourOf(dialect, 'paid_at');
  const rows: {
    currency: string;
    kind: string;
    slot: string;
    amount: string | number;
    count: string | number;
  }[] = [];
  if (split.whole) {
    for (const table of FOLDED_AND_NOT) {
      rows.push(
        ...(await rollupTotals(db, table, tenant, 'payments', split.whole)
          .select([
            'currency',
            'kind',
            'slot',
            sql<string | number>`sum(amount)`.as('amount'),
            sql<string | number>`sum(count)`.as('count'),
          ])
          .groupBy(['currency', 'kind', 'slot'])
          .execute()),
      );
    }
  }
  for (const edge of split.edges) {
    rows.push(
      ...(await paymentRows(db, tenant, edge)
        .where('status', '=', 'recorded')
        .select([
          'currency',
          'method as kind',
          slot.as('slot'),
          sql<string | number>`sum(amount)`.as('amount'),
          sql<string | number>`count(*)`.as('count'),
        ])
        .groupBy(['currency', 'method', slot])
        .execute()),
    );
  }
  return rows.map((r) => ({ slot: r.slot, ...tallies([r])[0] }) as SlotTally);
}

/**
 * What open obligations due in a range of calendar dates [from, to) (either end absent: no bound) still owe, per
 * currency and due date: the rollup and the deltas not folded into it yet.
 */
export async function owedByDueDate(db: DbOrTrx, tenant: TenantRef, dates: { from?: string; to?: string }) {
  const rows: { currency: string; due_date: string; amount: string | number }[] = [];
  for (const table of FOLDED_AND_NOT) {
    let q = db
      .selectFrom(table as 'report_rollups')
      .select(['currency', 'slot as due_date', sql<string | number>`sum(amount)`.as('amount')])
      .where(inTenant(tenant))
      .where('source', '=', 'obligations');
    if (dates.to) q = q.where('slot', '<', dates.to);
    if (dates.from) q = q.where('slot', '>=', dates.from);
    rows.push(...(await q.groupBy(['currency', 'slot']).execute()));
  }
  return rows;
}
