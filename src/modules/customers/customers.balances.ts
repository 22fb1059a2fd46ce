import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { localDate } from '../../lib/calendar.js';
import { toSafeInteger } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import { isOverdueNow } from '../schedules/obligations.overdue.js';
import { timeZoneOf } from '../workspaces/workspaces.service.js';
import type { CustomerBalance } from './customers.schemas.js';

/**
 * What each customer owes and holds, per currency: outstanding (the balances of its plans not archived), overdue
 * (per plan, what its obligations overdue now still ask, or its whole balance once its `dueDate` has passed, never
 * more than its balance: the overdue report's figure), and credit (its unapplied payments: money a provider reported that no plan took yet).
 * One statement per figure for all the customers asked.
 */
export async function balancesOf(
  db: DbOrTrx,
  tenant: Tenant,
  customerIds: readonly string[],
): Promise<Map<string, CustomerBalance[]>> {
  const found = new Map<string, Map<string, CustomerBalance>>();
  if (customerIds.length === 0) return new Map();
  const entry = (customerId: string, currency: string): CustomerBalance => {
    const byCurrency = found.get(customerId) ?? new Map<string, CustomerBalance>();
    found.set(customerId, byCurrency);
    const balance = byCurrency.get(currency) ?? { currency, outstanding: 0, overdue: 0, credit: 0 };
    byCurrency.set(currency, balance);
    return balance;
  };
  const timeZone = await timeZoneOf(db, tenant.workspaceId);
  const now = tenant.clock.now().toISOString();
  const today = localDate(now, timeZone);
  const plans = await db
    .selectFrom('tracks')
    .select([
      'customer_id',
      'currency',
      'balance',
      'due_date',
      (eb) =>
        eb
          .selectFrom('obligations')
          .select(sql<string | number | null>`sum(amount - amount_paid)`.as('owed'))
          .whereRef('obligations.track_id', '=', 'tracks.id')
          .where(isOverdueNow(now))
          .as('overdue_owed'),
    ])
    .where(inTenant(tenant))
    .where('customer_id', 'in', customerIds)
    .where('status', '<>', 'archived')
    .execute();
  for (const plan of plans) {
    const balance = entry(plan.customer_id, plan.currency);
    balance.outstanding += plan.balance;
    const pastDue = plan.due_date !== null && plan.due_date < today ? plan.balance : 0;
    const owed = toSafeInteger(plan.overdue_owed ?? 0);
    balance.overdue += Math.min(plan.balance, Math.max(owed, pastDue));
  }
  const credits = await db
    .selectFrom('payments')
    .select(['customer_id', 'currency', sql<string | number>`sum(amount)`.as('credit')])
    .where(inTenant(tenant))
    .where('customer_id', 'in', customerIds)
    .where('unapplied_reason', 'is not', null)
    .where('status', '=', 'recorded')
    .where('track_id', 'is', null)
    .groupBy(['customer_id', 'currency'])
    .execute();
  for (const row of credits) {
    if (row.customer_id !== null) entry(row.customer_id, row.currency).credit += toSafeInteger(row.credit);
  }
  return new Map(
    [...found].map(([customerId, byCurrency]) => [
      customerId,
      [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
    ]),
  );
}
