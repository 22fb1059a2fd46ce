import type { Dispute } from '../collections/disputes.schemas.js';
import { day, esc, field, formStart, money, status, table, when } from './console.html.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { type Obligation, oneLine, type Plan, planHref } from './plans.parts.js';

/** A plan's disputes on its page: the list, the form that opens one on the plan, a way to resolve an open one. */

export type { Dispute };

/** The reasons a customer disputes, as the API names them, in plain words. */
export const DISPUTE_REASONS: readonly { value: Dispute['reason']; label: string }[] = [
  { value: 'not_received', label: 'Goods or service not received' },
  { value: 'wrong_amount', label: 'Wrong amount' },
  { value: 'already_paid', label: 'Already paid' },
  { value: 'goods_returned', label: 'Goods returned' },
  { value: 'other', label: 'Something else' },
];

export const reasonWords = (reason: string) =>
  DISPUTE_REASONS.find((r) => r.value === reason)?.label ?? reason.replaceAll('_', ' ');

/** The words beside the forms' fields, for a refusal at the top of the page. */
export const DISPUTE_LABELS: Readonly<Record<string, string>> = {
  dispute_reason: 'Reason',
  dispute_note: 'What the customer says',
  resolve_note: 'Note',
  write_off_amount: 'Amount to write off',
};

/** What a dispute is on, in words: the plan, an obligation by its due date, or a payment. */
export function disputedThing(dispute: Dispute, obligations: readonly Obligation[], currency: string) {
  if (dispute.paymentId)
    return `The payment <a href="/console/payments/${encodeURIComponent(dispute.paymentId)}">${esc(dispute.paymentId)}</a>`;
  if (dispute.obligationId) {
    const o = obligations.find((item) => item.id === dispute.obligationId);
    if (!o) return 'An obligation of the plan';
    return `${o.kind === 'fee' ? 'The late fee' : 'The instalment'} due ${oneLine(day(o.due_date))} (${money(o.amount, currency)})`;
  }
  return 'The whole plan';
}

/** What became of a resolved dispute, in words. */
export function resolutionWords(dispute: Dispute, currency: string): string {
  const resolution = dispute.resolution;
  if (!resolution) return dispute.status === 'open' ? 'Open: reminders, debits and late fees wait.' : '';
  const action = resolution.action;
  const done =
    resolution.outcome === 'rejected'
      ? 'Rejected: chasing resumed.'
      : !action
        ? 'Accepted.'
        : action.type === 'write_off'
          ? `Accepted: ${money(action.amount, currency)} written off.`
          : action.type === 'adjust'
            ? `Accepted: the plan lowered by ${money(action.amount, currency)}.`
            : `Accepted: the payment of ${money(action.amount, currency)} reversed.`;
  return `${done}${resolution.note ? ` ${esc(resolution.note)}` : ''}`;
}

export const disputeHref = (planId: string, disputeId: string) =>
  `${planHref(planId)}/disputes/${encodeURIComponent(disputeId)}`;

export function disputesSection(
  visit: Visit,
  plan: Plan,
  disputes: readonly Dispute[],
  obligations: readonly Obligation[],
  state: { values?: ConsoleForm; errors?: Record<string, string> } = {},
): string {
  const resolves = visit.can('edit_records');
  const list = table(
    'Disputes, newest first',
    [
      { head: 'Opened', cell: (d: Dispute) => oneLine(when(visit, d.createdAt)) },
      { head: 'On', cell: (d: Dispute) => disputedThing(d, obligations, plan.currency) },
      { head: 'Reason', cell: (d: Dispute) => esc(reasonWords(d.reason)) },
      { head: 'Status', cell: (d: Dispute) => status(d.status) },
      { head: 'What the customer says', cell: (d: Dispute) => esc(d.note ?? '') },
      { head: 'Resolution', cell: (d: Dispute) => resolutionWords(d, plan.currency) },
      {
        head: 'Action',
        cell: (d: Dispute) =>
          resolves && d.status === 'open'
            ? `<a class="button secondary" href="${esc(disputeHref(plan.id, d.id))}">Reject or accept…</a>`
            : '',
      },
    ],
    disputes,
    'No disputes.',
  );
  const values = state.values ?? {};
  const errors = state.errors ?? {};
  const form =
    visit.can('record_payment') && plan.status === 'active'
      ? `<details class="card"${state.values ? ' open' : ''}><summary>Open a dispute</summary>
${formStart(visit, `${planHref(plan.id)}/disputes`, { label: 'Open a dispute' })}
${field({ label: 'Reason', name: 'dispute_reason', options: [{ value: '', label: 'Choose a reason' }, ...DISPUTE_REASONS], value: values.dispute_reason, required: true, hint: 'While the dispute is open, no reminder, automatic debit or late fee touches the plan.', error: errors.dispute_reason })}
${field({ label: 'What the customer says (optional)', name: 'dispute_note', type: 'textarea', value: values.dispute_note, error: errors.dispute_note, attributes: 'maxlength="500"' })}
<div class="actions"><button type="submit">Open dispute</button></div>
</form></details>`
      : '';
  return `<h2>Disputes</h2>\n${list}\n${form}`;
}
