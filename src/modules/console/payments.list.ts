import type { FastifyReply } from 'fastify';
import { esc, field, money, pager, status, table, when } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { Visit } from './console.visit.js';
import {
  customerHref,
  endOf,
  formError,
  type List,
  link,
  namesOf,
  one,
  oneLine,
  PAYMENT_METHOD_LABELS,
  PAYMENT_METHODS,
  type Payment,
  paymentHref,
  planHref,
  problemWith,
  readDate,
  startOf,
  trimmed,
  words,
} from './plans.parts.js';

/** The list of payments, filtered by method, status and days paid, of one plan or customer or of all. */

const STATUSES = [
  { value: '', label: 'Any status' },
  { value: 'recorded', label: 'Recorded' },
  { value: 'reversed', label: 'Reversed' },
  { value: 'split', label: 'Split' },
];

export async function listPage(reply: FastifyReply, visit: Visit, query: Record<string, unknown>) {
  const method = PAYMENT_METHODS.find((m) => m.value === one(query.method))?.value ?? '';
  const state = STATUSES.find((s) => s.value === one(query.status))?.value ?? '';
  const trackId = trimmed(one(query.track_id)) || undefined;
  const customerId = trimmed(one(query.customer_id)) || undefined;
  const fromText = trimmed(one(query.from));
  const toText = trimmed(one(query.to));
  const from = fromText ? readDate(fromText) : undefined;
  const to = toText ? readDate(toText) : undefined;
  const errors: Record<string, string> = {};
  if (fromText && !from) errors.from = 'Enter a date.';
  if (toText && !to) errors.to = 'Enter a date.';
  if (from && to && to < from) errors.to = 'Enter a day on or after the first.';
  const bad = Object.keys(errors).length > 0;
  const answer = bad
    ? null
    : await visit.api.get<List<Payment>>('/payments', {
        trackId,
        customerId,
        method: method || undefined,
        status: state || undefined,
        from: from ? startOf(visit, from) : undefined,
        to: to ? endOf(visit, to) : undefined,
        cursor: one(query.cursor),
        limit: 20,
      });
  const payments = answer?.ok ? answer.data.items : [];
  const [customers, plans] = await Promise.all([
    namesOf(visit, 'customers', [...payments.map((p) => p.customerId), customerId ?? null]),
    namesOf(visit, 'tracks', [...payments.map((p) => p.trackId), trackId ?? null]),
  ]);
  const hidden = [
    trackId ? `<input type="hidden" name="track_id" value="${esc(trackId)}">` : '',
    customerId ? `<input type="hidden" name="customer_id" value="${esc(customerId)}">` : '',
  ].join('');
  const filters = `<form method="get" action="/console/payments" class="filters" aria-label="Filter payments">
${field({ label: 'Method', name: 'method', options: [{ value: '', label: 'Any method' }, ...PAYMENT_METHODS], value: method })}
${field({ label: 'Status', name: 'status', options: STATUSES, value: state })}
${field({ label: 'Paid from', name: 'from', type: 'date', value: fromText, error: errors.from })}
${field({ label: 'Paid to', name: 'to', type: 'date', value: toText, error: errors.to })}
${hidden}<button type="submit" class="secondary">Show</button></form>`;
  const scope = [
    trackId ? `of the plan ${link(planHref(trackId), plans.get(trackId), trackId)}` : '',
    customerId ? `of ${link(customerHref(customerId), customers.get(customerId), customerId)}` : '',
  ].filter(Boolean);
  const of = scope.length
    ? `<p>Payments ${scope.join(' and ')}. <a href="/console/payments">All payments</a></p>`
    : '';
  const record = visit.can('record_payment')
    ? `<div class="actions"><a class="button" href="/console/payments/new${
        trackId ? `?track_id=${encodeURIComponent(trackId)}` : ''
      }">Record a payment</a></div>`
    : '';
  const rows = table(
    'Payments, latest first',
    [
      { head: 'Paid', cell: (p: Payment) => oneLine(when(visit, p.paidAt)) },
      {
        head: 'Amount',
        numeric: true,
        cell: (p: Payment) => `<a href="${esc(paymentHref(p.id))}">${money(p.amount, p.currency)}</a>`,
      },
      {
        head: 'Customer',
        cell: (p: Payment) =>
          p.customerId ? link(customerHref(p.customerId), customers.get(p.customerId), p.customerId) : '',
      },
      {
        head: 'Plan',
        cell: (p: Payment) => (p.trackId ? link(planHref(p.trackId), plans.get(p.trackId), p.trackId) : ''),
      },
      { head: 'Method', cell: (p: Payment) => esc(words(p.method, PAYMENT_METHOD_LABELS)) },
      { head: 'Reference', cell: (p: Payment) => esc(p.reference ?? '') },
      {
        head: 'Status',
        cell: (p: Payment) => `${status(p.status)}${p.unapplied ? ` ${status('unapplied')}` : ''}`,
      },
    ],
    payments,
    method || state || from || to || trackId || customerId ? 'No payment matches.' : 'No payments yet.',
  );
  const problemShown = bad
    ? problemWith(formError(errors), { from: 'Paid from', to: 'Paid to' })
    : answer && !answer.ok
      ? problemWith(answer.error, {})
      : '';
  return sendPage(
    reply,
    visit,
    {
      title: 'Payments',
      section: 'payments',
      body: `${record}${filters}${of}${problemShown}${rows}
${
  answer?.ok
    ? pager(
        '/console/payments',
        {
          method,
          status: state,
          from: fromText,
          to: toText,
          track_id: trackId,
          customer_id: customerId,
        },
        answer.data.next_cursor,
      )
    : ''
}`,
    },
    bad ? 422 : answer && !answer.ok ? answer.status : 200,
  );
}
