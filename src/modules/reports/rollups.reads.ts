import { sql } from 'kysely';
import { type DialectName, quarterHourOf } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { toSafeInteger } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';
import {
  LEDGER_ANY,
  LEDGER_UNROLLED,
  ledgerKind,
  OBLIGATION_UNROLLED,
  OWED_NOW,
  PAYMENT_UNROLLED,
} from './rollups.marks.js';
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

const recordedAmount = (status: string) =>
  sql<string | number>`coalesce(sum(case when ${sql.ref(status)} = 'recorded' then amount else 0 end), 0)`;
const recordedCount = (status: string) =>
  sql<string | number>`coalesce(sum(case when ${sql.ref(status)} = 'recorded' then 1 else 0 end), 0)`;
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

function rollupTotals(db: DbOrTrx, tenant: TenantRef, source: RollupSource, whole: InstantRange) {
  let q = db
    .selectFrom('report_rollups')
    .where(inTenant(tenant))
    .where('source', '=', source)
    .where('slot', '<', slotOf(whole.to));
  if (whole.from) q = q.where('slot', '>=', slotOf(whole.from));
  return q;
}

function ledgerRows(db: DbOrTrx, tenant: TenantRef, range: InstantRange) {
  let q = db.selectFrom('ledger_entries').where(inTenant(tenant)).where('occurred_at', '<', range.to);
  if (range.from) q = q.where('occurred_at', '>=', range.from);
  return q;
}

/**
 * Ledger totals per currency and kind of the entries that occurred before `end` (and at or after `from`), exact
 * at any moment when read in one snapshot: the rollup's whole slots, the entries not folded in yet, and the
 * entries of the partial slots at the edges.
 */
export async function ledgerTotals(db: DbOrTrx, tenant: TenantRef, from: string | null, end: string) {
  const split = splitRange(from, end);
  const parts: Tally[] = [];
  const byKind = (
    rows: {
      currency: string;
      type: string;
      no_plan: number | string;
      amount: string | number;
      count: string | number;
    }[],
  ) => tallies(rows.map((r) => ({ ...r, kind: ledgerKind(r.type, Number(r.no_plan) === 1 ? null : '') })));
  const rawTotals = (range: InstantRange, unrolledOnly: boolean) => {
    const q = ledgerRows(db, tenant, range).where(unrolledOnly ? LEDGER_UNROLLED : LEDGER_ANY);
    return q
      .select([
        'currency',
        'type',
        noPlan.as('no_plan'),
        sql<string | number>`coalesce(sum(amount), 0)`.as('amount'),
        sql<string | number>`count(*)`.as('count'),
      ])
      .groupBy(['currency', 'type', noPlan])
      .execute();
  };
  if (split.whole) {
    parts.push(
      ...tallies(
        await rollupTotals(db, tenant, 'ledger', split.whole)
          .select([
            'currency',
            'kind',
            sql<string | number>`sum(amount)`.as('amount'),
            sql<string | number>`sum(count)`.as('count'),
          ])
          .groupBy(['currency', 'kind'])
          .execute(),
      ),
      ...byKind(await rawTotals(split.whole, true)),
    );
  }
  for (const edge of split.edges) parts.push(...byKind(await rawTotals(edge, false)));
  return parts;
}

function paymentRows(db: DbOrTrx, tenant: TenantRef, range: InstantRange) {
  let q = db.selectFrom('payments').where(inTenant(tenant)).where('paid_at', '<', range.to);
  if (range.from) q = q.where('paid_at', '>=', range.from);
  return q;
}

/**
 * Recorded (not reversed) payments paid in [from, end), per currency, method and slot; exact at any moment when
 * read in one snapshot. A slot's figures may net to nothing (a folded payment since reversed).
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
    rows.push(
      ...(await rollupTotals(db, tenant, 'payments', split.whole)
        .select(['currency', 'kind', 'slot', 'amount', 'count'])
        .execute()),
      // Not folded in yet: what each payment is now, less what it was folded in as.
      ...(await paymentRows(db, tenant, split.whole)
        .where(PAYMENT_UNROLLED)
        .select([
          'currency',
          'method as kind',
          slot.as('slot'),
          sql<number>`${recordedAmount('status')} - ${recordedAmount('rolled_status')}`.as('amount'),
          sql<number>`${recordedCount('status')} - ${recordedCount('rolled_status')}`.as('count'),
        ])
        .groupBy(['currency', 'method', slot])
        .execute()),
    );
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
 * currency and due date.
 */
export async function owedByDueDate(db: DbOrTrx, tenant: TenantRef, dates: { from?: string; to?: string }) {
  let folded = db
    .selectFrom('report_rollups')
    .select(['currency', 'slot as due_date', sql<string | number>`sum(amount)`.as('amount')])
    .where(inTenant(tenant))
    .where('source', '=', 'obligations');
  if (dates.to) folded = folded.where('slot', '<', dates.to);
  if (dates.from) folded = folded.where('slot', '>=', dates.from);
  let unfolded = db
    .selectFrom('obligations')
    .select(['currency', 'due_date', sql<string | number>`sum(${OWED_NOW} - rolled_owed)`.as('amount')])
    .where(inTenant(tenant))
    .where(OBLIGATION_UNROLLED);
  if (dates.to) unfolded = unfolded.where('due_date', '<', dates.to);
  if (dates.from) unfolded = unfolded.where('due_date', '>=', dates.from);
  return [
    ...(await folded.groupBy(['currency', 'slot']).execute()),
    ...(await unfolded.groupBy(['currency', 'due_date']).execute()),
  ];
}
