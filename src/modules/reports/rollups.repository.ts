import { type SqlBool, sql } from 'kysely';
import { type DialectName, forUpdateSkipLocked, quarterHourOf } from '../../db/dialect.js';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { inTenant, inTenantGroup, type TenantGroup } from '../../db/scoping.js';
import { toSafeInteger } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';
import { type InstantRange, slotOf, splitRange } from './report-slots.js';
import type { ReportRollupsTable, RollupSource } from './rollups.table.js';

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

/** The rollup kind of a ledger entry: its type, marked when it has no plan (it moves no plan's balance). */
export const ledgerKind = (type: string, trackId: string | null) =>
  trackId === null ? `${type}~no_plan` : type;

const LEDGER_UNROLLED = sql<SqlBool>`rolled_up = 0`;
/** Both marks listed, so that the index on (tenant, mark, time) serves a range of time. */
const LEDGER_ANY = sql<SqlBool>`rolled_up in (0, 1)`;
/** Every mark a payment can have is listed, so that SQLite reads the marks' index, not payments_paid. */
const PAYMENT_UNROLLED = sql<SqlBool>`rolled_status <> status and rolled_status in ('', 'recorded', 'reversed')`;
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

/** What an obligation owes now: what is left of it while open, else 0. The figure the obligations' rollup keeps. */
const OWED_NOW = sql<number>`case when status in ('pending', 'partially_paid', 'overdue') then amount - amount_paid else 0 end`;
/** As in the index of obligations not folded yet, so that SQLite uses it. */
const OBLIGATION_UNROLLED = sql<SqlBool>`rolled_owed <> ${OWED_NOW}`;

/** What open obligations due in [fromDate, toDate) (calendar dates) still owe, per currency. */
export async function owedBetween(db: DbOrTrx, tenant: TenantRef, fromDate: string, toDate: string) {
  const folded = await db
    .selectFrom('report_rollups')
    .select(['currency', sql<string | number>`sum(amount)`.as('amount')])
    .where(inTenant(tenant))
    .where('source', '=', 'obligations')
    .where('slot', '>=', fromDate)
    .where('slot', '<', toDate)
    .groupBy('currency')
    .execute();
  const unfolded = await db
    .selectFrom('obligations')
    .select(['currency', sql<string | number>`sum(${OWED_NOW} - rolled_owed)`.as('amount')])
    .where(inTenant(tenant))
    .where(OBLIGATION_UNROLLED)
    .where('due_date', '>=', fromDate)
    .where('due_date', '<', toDate)
    .groupBy('currency')
    .execute();
  return [...folded, ...unfolded];
}

/** The rows one fold takes at most: its ids fit in one statement on both databases. */
export const FOLD_BATCH = 5000;

type RollupRow = ReportRollupsTable;

function addTo(rollup: Map<string, RollupRow>, row: RollupRow) {
  const key = [row.workspace_id, row.mode, row.source, row.slot, row.currency, row.kind].join('\u0000');
  const found = rollup.get(key);
  if (found) {
    found.amount += row.amount;
    found.count += row.count;
  } else rollup.set(key, { ...row });
}

/** Adds tallies to the rollup, in key order (two folds at once take row locks in the same order). */
async function addToRollup(trx: Trx, rollup: Map<string, RollupRow>) {
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

const changed = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0n);

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
  const ids = rows.map((r) => r.id);
  const marked = changed(
    await sql`update ledger_entries set rolled_up = 1 where rolled_up = 0 and id in (${sql.join(ids)})`.execute(
      trx,
    ),
  );
  if (marked !== rows.length)
    throw new Error(`ledger entries folded elsewhere meanwhile: ${marked} of ${rows.length}`);
  await addToRollup(trx, rollup);
  return rows.length;
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
      .limit(limit),
  ).execute();
  if (rows.length === 0) return 0;
  const rollup = new Map<string, RollupRow>();
  const byStatus = new Map<string, string[]>();
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
    marked += changed(
      await sql`update payments set rolled_status = ${status} where status = ${status} and id in (${sql.join(ids)})`.execute(
        trx,
      ),
    );
  }
  if (marked !== rows.length) throw new Error(`payments changed while folded: ${marked} of ${rows.length}`);
  await addToRollup(trx, rollup);
  return rows.length;
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
  const owed = sql.join(
    rows.map((r) => sql`when ${r.id} then cast(${toSafeInteger(r.owed)} as bigint)`),
    sql` `,
  );
  const marked = changed(
    await sql`update obligations set rolled_owed = case id ${owed} end where id in (${sql.join(rows.map((r) => r.id))})`.execute(
      trx,
    ),
  );
  if (marked !== rows.length)
    throw new Error(`obligations changed while folded: ${marked} of ${rows.length}`);
  await addToRollup(trx, rollup);
  return rows.length;
}
