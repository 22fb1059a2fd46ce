import type { AppContext } from '../../context.js';
import { inSnapshot } from '../../db/unit-of-work.js';
import { fieldError } from '../../lib/app-error.js';
import { addDays, daysBetween, LAST_DATE, localDate } from '../../lib/calendar.js';
import { addExact, toSafeInteger } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import { asReport } from './reports.exact.js';
import { periodOfDate } from './reports.period.js';
import type { Expected, ExpectedQuery } from './reports.schemas.js';
import { timeZoneOf } from './reports.service.js';
import { owedByDueDate } from './rollups.reads.js';

/** The longest span one report covers, in days after `due_from`. */
const MOST_DAYS = 366;

/** The dates in order and at most MOST_DAYS apart; the error names the field the request gave. */
function checkSpan(dueFrom: string, dueTo: string, fromGiven: boolean) {
  if (dueFrom > dueTo)
    throw fieldError(
      fromGiven
        ? { due_from: 'must not be after due_to' }
        : { due_to: 'must not be before today (due_from when absent)' },
    );
  if (daysBetween(dueFrom, dueTo) > MOST_DAYS)
    throw fieldError({ due_to: `must be at most ${MOST_DAYS} days after due_from (today when absent)` });
}

/**
 * `GET /reports/expected`: what open obligations due from `due_from` through `due_to` still ask, per currency and
 * period of their due dates, from the same figures as the summary report's `expectedNext30Days`.
 */
export function expected(ctx: AppContext, tenant: Tenant, query: ExpectedQuery): Promise<Expected> {
  const groupBy = query.groupBy ?? 'day';
  return asReport(() =>
    inSnapshot(ctx, async (db) => {
      const timeZone = await timeZoneOf(db, tenant);
      const dueFrom = query.due_from ?? localDate(tenant.clock.now(), timeZone);
      const dueTo = query.due_to ?? (dueFrom > addDays(LAST_DATE, -29) ? LAST_DATE : addDays(dueFrom, 29));
      checkSpan(dueFrom, dueTo, query.due_from !== undefined);
      // No due date falls after the last date kept: a bound past it is no bound.
      const rows = await owedByDueDate(db, tenant, {
        from: dueFrom,
        ...(dueTo < LAST_DATE ? { to: addDays(dueTo, 1) } : {}),
      });
      const books = new Map<string, { total: number; periods: Map<string, number> }>();
      for (const row of rows) {
        const amount = toSafeInteger(row.amount);
        if (amount === 0) continue;
        const book = books.get(row.currency) ?? { total: 0, periods: new Map<string, number>() };
        const period = periodOfDate(row.due_date, groupBy);
        book.total = addExact(book.total, amount);
        book.periods.set(period, addExact(book.periods.get(period) ?? 0, amount));
        books.set(row.currency, book);
      }
      return {
        dueFrom,
        dueTo,
        timezone: timeZone,
        groupBy,
        currencies: [...books.entries()]
          .filter(([, book]) => book.total !== 0)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([currency, book]) => ({
            currency,
            total: book.total,
            periods: [...book.periods.entries()]
              .filter(([, amount]) => amount !== 0)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([period, amount]) => ({ period, amount })),
          })),
      };
    }),
  );
}
