import { sql } from 'kysely';
import { shaped } from '../db/shaped-statements.js';
import type { TenantRef } from '../lib/tenant.js';
import { nextReceiptNumber } from '../modules/payments/payments.repository.js';
import type { PaymentsTable } from '../modules/payments/payments.table.js';
import { payQuery } from '../modules/schedules/obligations.repository.js';
import type { EventsTable } from '../outbox/events.table.js';
import { eventsInsert } from '../outbox/outbox.js';
import type { ObligationPart } from './deferred-writes.js';

/** What the payment's last statement returns: the receipt number it took. */
export interface WrittenPayment {
  last_number: number | string;
}

/**
 * PostgreSQL: a fresh payment's last writes in one statement (data-modifying CTEs): the workspace mode's next
 * receipt number, the payment row that carries it, every event of the payment, and its part in an obligation
 * that stays open. The receipt counter row is locked from here to the commit only: taken earlier, its lock held
 * every other payment of the workspace for the rest of the payment's round trips. In each event's data,
 * `numberToken` stands where the number's text goes (`R-000123`). The statement fails (division by zero, so
 * that nothing after it in its round trip runs, not even a commit sent with it) when the obligation's part
 * was not written: the plan's row lock keeps its obligations as the payment read them, so a miss is a bug.
 * Built once for each shape (`shaped`): every payment writes the same text.
 */
export const paymentStatement = shaped(
  (
    db,
    tenant: TenantRef,
    row: PaymentsTable,
    events: readonly EventsTable[],
    numberToken: string,
    obligationPart: ObligationPart | null,
  ) => {
    const numberText = sql<string>`(select 'R-' || lpad(last_number::text, greatest(6, length(last_number::text)), '0') from taken)`;
    // Without a part, the obligation CTE matches no row ('' is no obligation's id): one text for the statement.
    const part = obligationPart ?? { id: '', part: 0, allocations: '[]', now: row.created_at };
    const parts = obligationPart ? 1 : 0;
    return db
      .with('taken', (creator) => nextReceiptNumber(creator, tenant))
      .with('payment', (creator) =>
        creator
          .insertInto('payments')
          .values({ ...row, receipt_number: sql<number>`(select last_number from taken)` })
          .returning('id'),
      )
      .with('event', (creator) =>
        eventsInsert(
          creator,
          events.map((event) => ({
            ...event,
            data: sql<string>`replace(${event.data}, ${numberToken}, ${numberText})`,
          })),
        ).returning('id'),
      )
      .with('obligation_part', (creator) =>
        payQuery(creator, part.id, part.part, part.allocations, part.now).returning('id'),
      )
      .selectFrom('taken')
      .select([
        'last_number',
        sql<number>`1 / (case when (select count(*) from obligation_part) = ${parts} then 1 else 0 end)`.as(
          'parts_checked',
        ),
      ]);
  },
);
