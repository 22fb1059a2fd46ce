import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { toMajorUnits } from '../../lib/money.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { toApi as ledgerEntryToApi } from '../ledger/ledger.mapper.js';
import { toSummary as paymentSummary } from '../payments/payments.mapper.js';
import { customersByIds, plansByIds, reportRows } from '../reports/index.js';
import {
  type ExportRange,
  ledgerEntriesAfter,
  ledgerEntryCount,
  paymentCount,
  paymentsAfter,
} from './exports.repository.js';
import type { ExportReport } from './exports.table.js';

/**
 * One line of an export: money as integers of minor units beside its currency (payments and the ledger add the
 * same amount in major units as a decimal string), instants as ISO 8601 text.
 */
export type ExportRow = Record<string, string | number | null>;

/** Rows read from the database per query (keyset on id); each batch is one progress update. */
export const EXPORT_BATCH = 1000;

export interface RowSource {
  /** How many rows it will give, when known before the first (a count); null when known only at the end. */
  total: number | null;
  /** The columns in order, when known before the first row: a CSV of no rows still has its header. */
  columns: readonly string[] | null;
  /** The rows in order, a batch at a time, never all at once. */
  batches(): AsyncIterable<readonly ExportRow[]>;
}

const PAYMENT_COLUMNS = [
  'id',
  'trackId',
  'planTitle',
  'customerId',
  'customerName',
  'amount',
  'amountDecimal',
  'currency',
  'method',
  'status',
  'paidAt',
  'reference',
  'source',
  'createdAt',
  'reversedAt',
] as const;

const LEDGER_COLUMNS = [
  'id',
  'type',
  'trackId',
  'planTitle',
  'customerId',
  'customerName',
  'amount',
  'amountDecimal',
  'balanceAfter',
  'balanceAfterDecimal',
  'currency',
  'occurredAt',
] as const;

/** Plan titles or customer names seen so far, by id: at most `max`, the oldest forgotten first. */
class NameCache {
  private readonly names = new Map<string, string | null>();

  constructor(private readonly max: number) {}

  get(id: string | null): string | null {
    return id === null ? null : (this.names.get(id) ?? null);
  }

  /** The ids of `ids` not seen yet, once each. */
  unseen(ids: readonly (string | null)[]): string[] {
    const missing = new Set<string>();
    for (const id of ids) if (id !== null && !this.names.has(id)) missing.add(id);
    return [...missing];
  }

  /** Keeps what a lookup found; an id it did not find is kept as having no name. */
  keep(ids: readonly string[], found: ReadonlyMap<string, string>): void {
    for (const id of ids) {
      if (this.names.size >= this.max) {
        const oldest = this.names.keys().next();
        if (!oldest.done) this.names.delete(oldest.value);
      }
      this.names.set(id, found.get(id) ?? null);
    }
  }
}

/**
 * Names kept across an export's batches: a customer's payments and a plan's instalments come again and again, so
 * most rows need no lookup; a page of either is a bounded number of short strings.
 */
const NAMES_KEPT = 50_000;

/** The plan titles and customer names of an export's rows, looked up by primary key a batch at a time. */
class Names {
  private readonly plans = new NameCache(NAMES_KEPT);
  private readonly customers = new NameCache(NAMES_KEPT);

  constructor(
    private readonly db: DbOrTrx,
    private readonly tenant: TenantRef,
  ) {}

  /** Looks up, in one query each, the plans and customers of `rows` not seen before. */
  async load(rows: readonly { trackId: string | null; customerId: string | null }[]): Promise<void> {
    const trackIds = this.plans.unseen(rows.map((row) => row.trackId));
    const customerIds = this.customers.unseen(rows.map((row) => row.customerId));
    if (trackIds.length > 0) {
      const found = await plansByIds(this.db, this.tenant, trackIds);
      this.plans.keep(trackIds, new Map(found.map((plan) => [plan.id, plan.title])));
    }
    if (customerIds.length > 0) {
      const found = await customersByIds(this.db, this.tenant, customerIds);
      this.customers.keep(customerIds, new Map(found.map((c) => [c.id, c.name])));
    }
  }

  planTitle(id: string | null): string | null {
    return this.plans.get(id);
  }

  customerName(id: string | null): string | null {
    return this.customers.get(id);
  }
}

/**
 * Rows in id order, a batch of `EXPORT_BATCH` at a time: `fetch` gets the last id of the previous batch (null at
 * first) and returns the next batch, so the whole result never sits in memory. Each row is put in its wire form by
 * its module's mapper (`toApi`, as the API shows it), then written as the export's row. The plan titles and
 * customer names a batch needs that were not seen before are read in one lookup each.
 */
async function* keysetBatches<
  R extends { id: string },
  W extends { trackId: string | null; customerId: string | null },
>(
  db: DbOrTrx,
  tenant: TenantRef,
  fetch: (after: string | null) => Promise<R[]>,
  toApi: (row: R) => W,
  toRow: (item: W, names: Names) => ExportRow,
): AsyncIterable<readonly ExportRow[]> {
  let after: string | null = null;
  const names = new Names(db, tenant);
  for (;;) {
    const rows = await fetch(after);
    if (rows.length === 0) return;
    after = rows[rows.length - 1]?.id ?? null;
    const items = rows.map(toApi);
    await names.load(items);
    yield items.map((item) => toRow(item, names));
    if (rows.length < EXPORT_BATCH) return;
  }
}

/** Every payment with `paidAt` in [from, to), reversed ones too (see `status`, `reversedAt`), in id order. */
async function paymentsSource(db: DbOrTrx, tenant: TenantRef, range: ExportRange): Promise<RowSource> {
  return {
    total: await paymentCount(db, tenant, range),
    columns: PAYMENT_COLUMNS,
    batches: () =>
      keysetBatches(
        db,
        tenant,
        (after) => paymentsAfter(db, tenant, range, after, EXPORT_BATCH),
        paymentSummary,
        (payment, names): ExportRow => ({
          id: payment.id,
          trackId: payment.trackId,
          planTitle: names.planTitle(payment.trackId),
          customerId: payment.customerId,
          customerName: names.customerName(payment.customerId),
          amount: payment.amount,
          amountDecimal: toMajorUnits(payment.amount, payment.currency),
          currency: payment.currency,
          method: payment.method,
          status: payment.status,
          paidAt: payment.paidAt,
          reference: payment.reference,
          source: payment.source,
          createdAt: payment.createdAt,
          reversedAt: payment.reversedAt,
        }),
      ),
  };
}

/** Every ledger entry with `occurredAt` in [from, to), in id order. */
async function ledgerSource(db: DbOrTrx, tenant: TenantRef, range: ExportRange): Promise<RowSource> {
  return {
    total: await ledgerEntryCount(db, tenant, range),
    columns: LEDGER_COLUMNS,
    batches: () =>
      keysetBatches(
        db,
        tenant,
        (after) => ledgerEntriesAfter(db, tenant, range, after, EXPORT_BATCH),
        ledgerEntryToApi,
        (entry, names): ExportRow => ({
          id: entry.id,
          type: entry.type,
          trackId: entry.trackId,
          planTitle: names.planTitle(entry.trackId),
          customerId: entry.customerId,
          customerName: names.customerName(entry.customerId),
          amount: entry.amount,
          amountDecimal: toMajorUnits(entry.amount, entry.currency),
          balanceAfter: entry.balanceAfter,
          balanceAfterDecimal:
            entry.balanceAfter === null ? null : toMajorUnits(entry.balanceAfter, entry.currency),
          currency: entry.currency,
          occurredAt: entry.occurredAt,
        }),
      ),
  };
}

/** A computed report's rows (summary, collections, overdue), grouped into batches as they come. */
function reportSource(
  ctx: AppContext,
  tenant: Tenant,
  report: 'summary' | 'collections' | 'overdue',
  range: ExportRange,
): RowSource {
  return {
    total: null,
    columns: null,
    async *batches() {
      let batch: ExportRow[] = [];
      for await (const row of reportRows(ctx, tenant, report, {
        ...(range.from ? { from: range.from } : {}),
        ...(range.to ? { to: range.to } : {}),
      })) {
        batch.push(row);
        if (batch.length >= EXPORT_BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
  };
}

/** Where an export's rows come from. */
export async function rowSource(
  ctx: AppContext,
  tenant: Tenant,
  report: ExportReport,
  range: ExportRange,
): Promise<RowSource> {
  switch (report) {
    case 'payments':
      return paymentsSource(ctx.db, tenant, range);
    case 'ledger':
      return ledgerSource(ctx.db, tenant, range);
    default:
      return reportSource(ctx, tenant, report, range);
  }
}
