import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { formatMoney } from '../../lib/money.js';
import { amountText, readAmount } from './amount-input.js';
import type { ApiError } from './console.api.js';
import {
  day,
  esc,
  field,
  formStart,
  idempotencyKeyOf,
  money,
  notice,
  pager,
  status,
  table,
  when,
} from './console.html.js';
import { sendPage } from './console.layout.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import {
  backTo,
  customerHref,
  endOf,
  fieldErrors,
  formError,
  type List,
  link,
  namesOf,
  type Obligation,
  oneLine,
  PAYMENT_METHOD_LABELS,
  PAYMENT_METHODS,
  type Payment,
  type Plan,
  paymentHref,
  planHref,
  problemWith,
  readDate,
  renameFields,
  startOf,
  todayOf,
  words,
} from './plans.parts.js';

/**
 * Payments: the list with its filters, a payment's page (its allocations, and the reversal form for those who may
 * reverse: a reason and a confirmation, both required), and the form that records a payment on a plan. Through
 * the API, each with the form's idempotency key, so a form sent twice records once.
 */

const MESSAGES: Readonly<Record<string, string>> = {
  recorded: 'The payment was recorded.',
  reversed: "The payment was reversed: the plan's balance went back up by its amount.",
};

const METHODS = PAYMENT_METHODS;
const METHOD_LABELS = PAYMENT_METHOD_LABELS;
const STATUSES = [
  { value: '', label: 'Any status' },
  { value: 'recorded', label: 'Recorded' },
  { value: 'reversed', label: 'Reversed' },
  { value: 'split', label: 'Split' },
];

const PAYMENT_FIELD_NAMES: Readonly<Record<string, string>> = { trackId: 'track_id', paidAt: 'paid_on' };
const PAYMENT_LABELS: Readonly<Record<string, string>> = {
  track_id: 'Plan',
  amount: 'Amount',
  method: 'Method',
  reference: 'Reference',
  paid_on: 'Paid on',
  reason: 'Reason',
  confirm: 'Confirmation',
};

const one = (value: unknown) => (typeof value === 'string' ? value : undefined);
const trimmed = (value: string | undefined) => (value ?? '').trim();

const notFoundPage = (reply: FastifyReply, visit: Visit) =>
  sendPage(
    reply,
    visit,
    {
      title: 'Payment not found',
      section: 'payments',
      body: backTo(
        'There is no such payment in this workspace.',
        '/console/payments',
        'Back to the payments',
      ),
    },
    404,
  );

const refusedPage = (reply: FastifyReply, visit: Visit, text: string, back: string) =>
  sendPage(
    reply,
    visit,
    { title: 'Not allowed', section: 'payments', body: backTo(text, back, 'Back') },
    403,
  );

// ---------------------------------------------------------------------------------------------- the list

async function listPage(reply: FastifyReply, visit: Visit, query: Record<string, unknown>) {
  const method = METHODS.find((m) => m.value === one(query.method))?.value ?? '';
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
${field({ label: 'Method', name: 'method', options: [{ value: '', label: 'Any method' }, ...METHODS], value: method })}
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
      { head: 'Method', cell: (p: Payment) => esc(words(p.method, METHOD_LABELS)) },
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

// ---------------------------------------------------------------------------------------------- a payment

interface PaymentState {
  done?: string;
  status?: number;
  problem?: ApiError;
  values?: ConsoleForm;
}

function reverseForm(visit: Visit, payment: Payment, planTitle: string | undefined, state: PaymentState) {
  if (payment.status !== 'recorded' || payment.refund?.status === 'pending') return '';
  if (!visit.can('reverse_payment')) return '<p class="note">Only owners and admins reverse payments.</p>';
  const errors = fieldErrors(state.problem);
  const values = state.values ?? {};
  const amount = money(payment.amount, payment.currency);
  const consequence = payment.trackId
    ? `I understand the balance of ${esc(planTitle ?? payment.trackId)} goes back up by ${amount}.`
    : `I understand this ${amount} is taken out of the books.`;
  return `<h2>Reverse this payment</h2>
<p class="note">For money that did not arrive or was recorded by mistake. A reversal cannot be undone: record the payment again if it was reversed in error.</p>
${formStart(visit, `${paymentHref(payment.id)}/reverse`, { label: 'Reverse this payment' })}
${field({ label: 'Reason', name: 'reason', type: 'textarea', value: values.reason, required: true, hint: 'Kept in the audit trail, like "Cheque returned unpaid".', error: errors.reason, attributes: 'maxlength="500"' })}
<div class="check"><input type="checkbox" id="f-confirm" name="confirm" value="yes" required${
    errors.confirm ? ' aria-invalid="true" aria-describedby="f-confirm-error"' : ''
  }><label for="f-confirm">${consequence}</label></div>${
    errors.confirm ? `<span class="field-error" id="f-confirm-error">${esc(errors.confirm)}</span>` : ''
  }
<div class="actions"><button type="submit" class="danger">Reverse payment</button></div>
</form>`;
}

async function paymentPage(reply: FastifyReply, visit: Visit, id: string, state: PaymentState = {}) {
  const found = await visit.api.get<Payment>(`/payments/${encodeURIComponent(id)}`);
  if (!found.ok) {
    if (found.status === 404) return notFoundPage(reply, visit);
    return sendPage(
      reply,
      visit,
      { title: 'Payment', section: 'payments', body: problemWith(found.error, {}) },
      found.status,
    );
  }
  const payment = found.data;
  const [customers, plans, obligations] = await Promise.all([
    namesOf(visit, 'customers', [payment.customerId]),
    namesOf(visit, 'tracks', [payment.trackId]),
    payment.trackId && payment.allocations.length > 0
      ? visit.api.get<List<Obligation>>('/obligations', { track_id: payment.trackId, limit: 100 })
      : Promise.resolve(null),
  ]);
  const dueOf = new Map((obligations?.ok ? obligations.data.items : []).map((o) => [o.id, o.due_date]));
  const cur = payment.currency;
  const planTitle = payment.trackId ? plans.get(payment.trackId) : undefined;
  const facts = `<section class="card" aria-label="The payment">
<dl class="facts">
<dt>Amount</dt><dd>${money(payment.amount, cur)}</dd>
<dt>Status</dt><dd>${status(payment.status)}${payment.unapplied ? ` ${status('unapplied')}` : ''}</dd>
<dt>Plan</dt><dd>${payment.trackId ? link(planHref(payment.trackId), planTitle, payment.trackId) : 'None'}</dd>
<dt>Customer</dt><dd>${payment.customerId ? link(customerHref(payment.customerId), customers.get(payment.customerId), payment.customerId) : 'Unknown'}</dd>
<dt>Method</dt><dd>${esc(words(payment.method, METHOD_LABELS))}</dd>
<dt>Reference</dt><dd>${payment.reference ? esc(payment.reference) : 'None'}</dd>
<dt>Paid</dt><dd>${when(visit, payment.paidAt)}</dd>
<dt>Recorded</dt><dd>${when(visit, payment.createdAt)}${payment.source === 'provider' ? ` from ${esc(payment.provider ?? 'a payment provider')}` : ''}</dd>
${payment.unallocatedAmount > 0 ? `<dt>Not on an obligation</dt><dd>${money(payment.unallocatedAmount, cur)}</dd>` : ''}
${payment.unappliedReason ? `<dt>Why unapplied</dt><dd>${esc(words(payment.unappliedReason))}</dd>` : ''}
${payment.refund ? `<dt>Refund</dt><dd>${status(payment.refund.status)}</dd>` : ''}
${payment.reversedAt ? `<dt>Reversed</dt><dd>${when(visit, payment.reversedAt)}</dd>` : ''}
${payment.reversedAt ? `<dt>Reason</dt><dd>${esc(payment.reversalReason ?? 'None given')}</dd>` : ''}
<dt>Id</dt><dd><code>${esc(payment.id)}</code></dd>
</dl></section>`;
  const allocations = table(
    'Obligations it paid',
    [
      {
        head: 'Due',
        cell: (a: Payment['allocations'][number]) =>
          oneLine(day(dueOf.get(a.obligationId)) || esc(a.obligationId)),
      },
      { head: 'Amount', numeric: true, cell: (a: Payment['allocations'][number]) => money(a.amount, cur) },
      {
        head: 'Counts',
        cell: (a: Payment['allocations'][number]) => (a.reversedAt ? status('reversed') : 'yes'),
      },
    ],
    payment.allocations,
    'It paid no obligation.',
  );
  const shownProblem = state.problem ? problemWith(state.problem, PAYMENT_LABELS) : '';
  const body = `${notice(state.done, MESSAGES)}${shownProblem}
${facts}
<h2>Allocations</h2>
${allocations}
${reverseForm(visit, payment, planTitle, state)}`;
  return sendPage(
    reply,
    visit,
    { title: `Payment of ${formatMoney(payment.amount, cur)}`, section: 'payments', body },
    state.status ?? 200,
  );
}

async function reverse(reply: FastifyReply, visit: Visit, id: string, form: ConsoleForm) {
  const found = await visit.api.get<Payment>(`/payments/${encodeURIComponent(id)}`);
  if (!found.ok) return notFoundPage(reply, visit);
  const errors: Record<string, string> = {};
  const reason = trimmed(form.reason);
  if (!reason) errors.reason = 'Give the reason for the reversal.';
  else if (reason.length > 500) errors.reason = 'At most 500 characters.';
  if (form.confirm !== 'yes') errors.confirm = 'Tick the box to confirm the balance goes back up.';
  if (Object.keys(errors).length > 0)
    return paymentPage(reply, visit, id, { status: 422, problem: formError(errors), values: form });
  const reversed = await visit.api.send<Payment>(
    'POST',
    `/payments/${encodeURIComponent(id)}/reverse`,
    { reason },
    idempotencyKeyOf(form),
  );
  if (reversed.ok)
    return reply
      .code(303)
      .header('location', `${paymentHref(id)}?done=reversed`)
      .send();
  return paymentPage(reply, visit, id, { status: reversed.status, problem: reversed.error, values: form });
}

// ---------------------------------------------------------------------------------------------- record

/** What the plan asks now: its open obligations due today or before (never more than its balance). */
async function dueNow(visit: Visit, plan: Plan): Promise<number> {
  const due = await visit.api.get<List<Obligation>>('/obligations', {
    track_id: plan.id,
    due_to: todayOf(visit),
    limit: 100,
  });
  const sum = due.ok ? due.data.items.reduce((total, o) => total + o.amount_due, 0) : 0;
  return Math.min(sum, plan.balance);
}

async function recordPage(
  reply: FastifyReply,
  visit: Visit,
  values: ConsoleForm,
  error: ApiError | null = null,
  code = 200,
) {
  const errors = fieldErrors(error);
  const trackId = trimmed(values.track_id);
  const found = trackId ? await visit.api.get<Plan>(`/tracks/${encodeURIComponent(trackId)}`) : null;
  const plan = found?.ok ? found.data : undefined;
  if (plan && plan.status !== 'active')
    return sendPage(
      reply,
      visit,
      {
        title: 'Record a payment',
        section: 'payments',
        body: `<div class="problem" role="alert"><strong>The plan ${link(planHref(plan.id), plan.title, plan.id)} is ${esc(
          plan.status,
        )}: no payment can be recorded on it.</strong></div>`,
      },
      409,
    );
  let planField: string;
  let amountHint = "In the plan's currency, like 1,500.00.";
  let amount = values.amount;
  if (plan) {
    const [names, owed] = await Promise.all([
      namesOf(visit, 'customers', [plan.customerId]),
      dueNow(visit, plan),
    ]);
    planField = `<p>Plan: ${link(planHref(plan.id), plan.title, plan.id)} of ${link(
      customerHref(plan.customerId),
      names.get(plan.customerId),
      plan.customerId,
    )}, balance ${money(plan.balance, plan.currency)}.<input type="hidden" name="track_id" value="${esc(plan.id)}"></p>`;
    amountHint = `In ${plan.currency}, like 1,500.00. ${
      owed > 0 ? `Due now (overdue and due today): ${money(owed, plan.currency)}.` : 'Nothing is due now.'
    } Balance: ${money(plan.balance, plan.currency)}.`;
    if (amount === undefined && owed > 0) amount = amountText(owed, plan.currency);
  } else {
    const active = await visit.api.get<List<Plan>>('/tracks', { status: 'active', limit: 100 });
    const list = active.ok ? active.data.items : [];
    planField = field({
      label: 'Plan',
      name: 'track_id',
      options: [
        { value: '', label: 'Choose a plan' },
        ...list.map((p) => ({
          value: p.id,
          label: `${p.title} (${p.currency} balance ${amountText(p.balance, p.currency)})`,
        })),
      ],
      value: trackId,
      required: true,
      ...(active.ok && active.data.has_more
        ? { hint: "The latest 100 active plans; for another, start from the plan's page." }
        : {}),
      error: errors.track_id ?? (trackId ? 'No such plan here: choose one.' : undefined),
    });
  }
  const body = `${problemWith(error, PAYMENT_LABELS)}
${formStart(visit, '/console/payments', { label: 'Record a payment' })}
${planField}
${field({ label: 'Amount', name: 'amount', value: amount, required: true, hint: amountHint, error: errors.amount, attributes: 'inputmode="decimal" autocomplete="off"' })}
${field({ label: 'Method', name: 'method', options: METHODS, value: values.method ?? 'cash', error: errors.method })}
${field({ label: 'Reference (optional)', name: 'reference', value: values.reference, hint: 'A bank or receipt reference; each is used once in the workspace, so the same transfer is never counted twice.', error: errors.reference, attributes: 'maxlength="120" autocomplete="off"' })}
${field({ label: 'Paid on', name: 'paid_on', type: 'date', value: values.paid_on ?? todayOf(visit), hint: `Today or earlier, in ${visit.workspace.timeZone}.`, error: errors.paid_on, attributes: `max="${todayOf(visit)}"` })}
<div class="actions"><button type="submit">Record payment</button><a class="button secondary" href="${
    plan ? esc(planHref(plan.id)) : '/console/payments'
  }">Cancel</a></div>
</form>`;
  return sendPage(reply, visit, { title: 'Record a payment', section: 'payments', body }, code);
}

async function record(reply: FastifyReply, visit: Visit, form: ConsoleForm) {
  const errors: Record<string, string> = {};
  const trackId = trimmed(form.track_id);
  const found = trackId ? await visit.api.get<Plan>(`/tracks/${encodeURIComponent(trackId)}`) : null;
  if (!found?.ok) {
    errors.track_id = trackId ? 'No such plan here: choose one.' : 'Choose a plan.';
    return recordPage(reply, visit, { ...form, track_id: '' }, formError(errors), 422);
  }
  const plan = found.data;
  const amount = readAmount(form.amount, plan.currency);
  if (!amount.ok) errors.amount = amount.error;
  const method = form.method ?? 'cash';
  if (!METHODS.some((m) => m.value === method)) errors.method = 'Choose a method.';
  const reference = trimmed(form.reference);
  if (reference.length > 120) errors.reference = 'At most 120 characters.';
  const paidText = trimmed(form.paid_on);
  const paidOn = paidText ? readDate(paidText) : undefined;
  const today = todayOf(visit);
  if (paidText && !paidOn) errors.paid_on = 'Enter the day it was paid as a date.';
  else if (paidOn && paidOn > today) errors.paid_on = 'Enter today or an earlier day.';
  if (Object.keys(errors).length > 0 || !amount.ok)
    return recordPage(reply, visit, form, formError(errors), 422);
  const recorded = await visit.api.send<Payment>(
    'POST',
    '/payments',
    {
      trackId: plan.id,
      amount: amount.minor,
      method,
      ...(reference ? { reference } : {}),
      // Today is now (the API's default); an earlier day is its first instant in the workspace's zone.
      ...(paidOn && paidOn < today ? { paidAt: startOf(visit, paidOn) } : {}),
    },
    idempotencyKeyOf(form),
  );
  if (recorded.ok)
    return reply
      .code(303)
      .header('location', `${paymentHref(recorded.data.id)}?done=recorded`)
      .send();
  const refused = renameFields(recorded.error, PAYMENT_FIELD_NAMES);
  if (recorded.error.code === 'amount_exceeds_balance') {
    const balance = Number(recorded.error.details?.balance ?? plan.balance);
    refused.details = {
      ...refused.details,
      fields: { amount: `More than the plan's balance of ${formatMoney(balance, plan.currency)}.` },
    };
  }
  return recordPage(reply, visit, form, refused, recorded.status);
}

// ---------------------------------------------------------------------------------------------- routes

export function paymentsPages(app: FastifyInstance, _ctx: AppContext) {
  app.get('/payments', { schema: { hide: true } }, async (request, reply) =>
    listPage(reply, visitIn(request), (request.query ?? {}) as Record<string, unknown>),
  );

  app.get('/payments/new', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('record_payment'))
      return refusedPage(
        reply,
        visit,
        'A viewer can only look; ask an owner, admin or collector.',
        '/console/payments',
      );
    const trackId = one((request.query as Record<string, unknown>).track_id);
    return recordPage(reply, visit, trackId ? { track_id: trackId } : {});
  });

  app.post<{ Body: ConsoleForm }>('/payments', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('record_payment'))
      return refusedPage(
        reply,
        visit,
        'A viewer can only look; ask an owner, admin or collector.',
        '/console/payments',
      );
    return record(reply, visit, request.body ?? {});
  });

  app.get<{ Params: { id: string } }>('/payments/:id', { schema: { hide: true } }, async (request, reply) =>
    paymentPage(reply, visitIn(request), request.params.id, {
      done: one((request.query as Record<string, unknown>).done),
    }),
  );

  app.post<{ Params: { id: string }; Body: ConsoleForm }>(
    '/payments/:id/reverse',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('reverse_payment'))
        return refusedPage(
          reply,
          visit,
          'Only owners and admins reverse payments.',
          paymentHref(request.params.id),
        );
      return reverse(reply, visit, request.params.id, request.body ?? {});
    },
  );
}
