import type { AppContext } from '../../context.js';
import type { Tenant } from '../../lib/tenant.js';
import { describeAccounts } from './reports.overdue.js';
import { periodOf } from './reports.period.js';
import { collections, overdueBookAt, summary } from './reports.service.js';

type Row = Record<string, string | number | null>;

/** Overdue accounts given their customer and plan title per query. */
const ACCOUNTS_PER_BATCH = 1000;

/**
 * The rows of a report's export: summary, one row per currency; collections, one row per currency and day;
 * overdue, every overdue account (not a page), worst first within each currency.
 */
export async function* reportRows(
  ctx: AppContext,
  tenant: Tenant,
  report: 'summary' | 'collections' | 'overdue',
  range: { from?: string; to?: string },
): AsyncIterable<Row> {
  if (report === 'summary') {
    const figures = await summary(ctx, tenant, range);
    // The ageing of the overdue amount is the overdue export's to give, account by account.
    for (const { overdueBuckets: _aged, ...c } of figures.currencies)
      yield { from: figures.from, to: figures.to, ...c };
    return;
  }
  if (report === 'collections') {
    const figures = await collections(ctx, tenant, { ...range, groupBy: 'day' });
    for (const c of figures.currencies) {
      for (const p of c.periods)
        yield { currency: c.currency, day: p.period, total: p.total, count: p.count };
    }
    return;
  }
  const period = periodOf({ ...(range.to ? { to: range.to } : {}) }, tenant.clock.now());
  const at = period.to;
  const { book } = await overdueBookAt(ctx, tenant, period);
  for (let i = 0; i < book.accounts.length; i += ACCOUNTS_PER_BATCH) {
    const batch = await describeAccounts(ctx.db, tenant, book.accounts.slice(i, i + ACCOUNTS_PER_BATCH));
    for (const account of batch) yield { asOf: at, ...account };
  }
}
