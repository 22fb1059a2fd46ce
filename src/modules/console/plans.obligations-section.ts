import { day, esc, money, status, table } from './console.html.js';
import type { Visit } from './console.visit.js';
import { type Obligation, oneLine, planHref } from './plans.parts.js';

/** A plan's obligations on its page: instalments and the late fees charged on them, with Waive for an open fee. */

export const OPEN_STATES: readonly string[] = ['pending', 'partially_paid', 'overdue'];

export const waiveHref = (planId: string, obligationId: string) =>
  `${planHref(planId)}/obligations/${encodeURIComponent(obligationId)}/waive`;

/** What an obligation is, in words: an instalment, or a late fee on the instalment it follows. */
export function obligationKind(o: Obligation, all: readonly Obligation[]): string {
  if (o.kind !== 'fee') return 'Instalment';
  const of = all.find((item) => item.id === o.fee_of);
  return of
    ? `<strong>Late fee</strong> on the instalment due ${oneLine(day(of.due_date))}`
    : '<strong>Late fee</strong>';
}

export function obligationsTable(visit: Visit, planId: string, rows: readonly Obligation[]): string {
  const waives = visit.can('edit_records');
  const anyFee = rows.some((o) => o.kind === 'fee');
  return table(
    'Obligations, earliest due first',
    [
      { head: 'Due', cell: (o: Obligation) => oneLine(day(o.due_date)) },
      { head: 'What', cell: (o: Obligation) => obligationKind(o, rows) },
      { head: 'Status', cell: (o: Obligation) => status(o.status) },
      { head: 'Amount', numeric: true, cell: (o: Obligation) => money(o.amount, o.currency) },
      { head: 'Paid', numeric: true, cell: (o: Obligation) => money(o.amount_paid, o.currency) },
      { head: 'Still due', numeric: true, cell: (o: Obligation) => money(o.amount_due, o.currency) },
      ...(waives && anyFee
        ? [
            {
              head: 'Action',
              cell: (o: Obligation) =>
                o.kind === 'fee' && OPEN_STATES.includes(o.status)
                  ? `<a class="button secondary" href="${esc(waiveHref(planId, o.id))}" aria-label="Waive the late fee due ${esc(o.due_date)}">Waive…</a>`
                  : '',
            },
          ]
        : []),
    ],
    rows,
    'No obligations: add a collection schedule to spread the balance over due dates.',
  );
}
