import { day, esc, field, formStart, money, status, table, when } from './console.html.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { oneLine, type Plan, planHref, todayOf } from './plans.parts.js';

/** A plan's promises to pay on its page: the list, the form that records one, Cancel for the open one. */

export interface PromiseToPay {
  id: string;
  trackId: string;
  obligationId: string | null;
  amount: number;
  currency: string;
  date: string;
  note: string | null;
  source: 'business' | 'payer';
  status: 'open' | 'kept' | 'broken' | 'cancelled';
  createdAt: string;
  resolvedAt: string | null;
}

const SOURCE_WORDS: Readonly<Record<PromiseToPay['source'], string>> = {
  business: 'Recorded by you',
  payer: 'Made by the customer on their page',
};

/** The words beside the form's fields, for a refusal at the top of the page. */
export const PROMISE_LABELS: Readonly<Record<string, string>> = {
  promise_amount: 'Promise amount',
  promise_date: 'Pay by',
  promise_note: 'Note',
};

export function promisesSection(
  visit: Visit,
  plan: Plan,
  promises: readonly PromiseToPay[],
  state: { values?: ConsoleForm; errors?: Record<string, string> } = {},
): string {
  const may = visit.can('record_payment');
  const list = table(
    'Promises to pay, newest first',
    [
      { head: 'Pay by', cell: (p: PromiseToPay) => oneLine(day(p.date)) },
      { head: 'Amount', numeric: true, cell: (p: PromiseToPay) => money(p.amount, p.currency) },
      { head: 'Status', cell: (p: PromiseToPay) => status(p.status) },
      { head: 'Source', cell: (p: PromiseToPay) => esc(SOURCE_WORDS[p.source]) },
      { head: 'Note', cell: (p: PromiseToPay) => esc(p.note ?? '') },
      { head: 'Recorded', cell: (p: PromiseToPay) => oneLine(when(visit, p.createdAt)) },
      {
        head: 'Action',
        cell: (p: PromiseToPay) =>
          may && p.status === 'open'
            ? `${formStart(visit, `${planHref(plan.id)}/promises/${encodeURIComponent(p.id)}/cancel`, {
                className: 'inline',
                label: `Cancel the promise of ${p.date}`,
              })}<button type="submit" class="secondary">Cancel</button></form>`
            : '',
      },
    ],
    promises,
    'No promises to pay.',
  );
  const open = promises.some((p) => p.status === 'open');
  const values = state.values ?? {};
  const errors = state.errors ?? {};
  const form =
    may && plan.status === 'active' && plan.balance > 0 && !open
      ? `<details class="card"${state.values ? ' open' : ''}><summary>Record a promise</summary>
${formStart(visit, `${planHref(plan.id)}/promises`, { label: 'Record a promise' })}
${field({ label: `Amount (${plan.currency})`, name: 'promise_amount', value: values.promise_amount, required: true, hint: "At most the plan's balance.", error: errors.promise_amount, attributes: 'inputmode="decimal"' })}
${field({ label: 'Pay by', name: 'promise_date', type: 'date', value: values.promise_date ?? todayOf(visit), required: true, hint: 'Reminders and automatic debits wait until the end of this day.', error: errors.promise_date })}
${field({ label: 'Note (optional)', name: 'promise_note', type: 'textarea', value: values.promise_note, error: errors.promise_note, attributes: 'maxlength="500"' })}
<div class="actions"><button type="submit">Record promise</button></div>
</form></details>`
      : '';
  return `<h2>Promises to pay</h2>\n${list}\n${form}`;
}
