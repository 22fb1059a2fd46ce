import type { FastifyReply } from 'fastify';
import { formatMoney } from '../../lib/money.js';
import type { ApiError } from './console.api.js';
import {
  day,
  esc,
  field,
  formStart,
  idempotencyKeyOf,
  money,
  notice,
  status,
  table,
  when,
} from './console.html.js';
import { sendPage } from './console.layout.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import {
  backTo,
  customerHref,
  fieldErrors,
  formError,
  type List,
  link,
  namesOf,
  type Obligation,
  oneLine,
  PAYMENT_METHOD_LABELS,
  type Payment,
  paymentHref,
  planHref,
  problemWith,
  recordRefused,
  trimmed,
  words,
} from './plans.parts.js';

/**
 * A payment's page: its facts and allocations, and the reversal form for those who may reverse (a reason and a
 * confirmation, both required).
 */

const MESSAGES: Readonly<Record<string, string>> = {
  recorded: 'The payment was recorded.',
  reversed: "The payment was reversed: the plan's balance went back up by its amount.",
};

/** The fields of the payment forms (recording and reversing), as the forms label them. */
export const PAYMENT_LABELS: Readonly<Record<string, string>> = {
  track_id: 'Plan',
  amount: 'Amount',
  method: 'Method',
  reference: 'Reference',
  paid_on: 'Paid on',
  reason: 'Reason',
  confirm: 'Confirmation',
};

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

export async function paymentPage(reply: FastifyReply, visit: Visit, id: string, state: PaymentState = {}) {
  const found = await visit.api.get<Payment>(`/payments/${encodeURIComponent(id)}`);
  if (!found.ok)
    return recordRefused(reply, visit, found, { title: 'Payment', section: 'payments' }, notFoundPage);
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
<dt>Method</dt><dd>${esc(words(payment.method, PAYMENT_METHOD_LABELS))}</dd>
<dt>Reference</dt><dd>${payment.reference ? esc(payment.reference) : 'None'}</dd>
<dt>Paid</dt><dd>${when(visit, payment.paidAt)}</dd>
<dt>Recorded</dt><dd>${when(visit, payment.createdAt)}${payment.source === 'provider' ? ` from ${esc(payment.provider ?? 'a payment provider')}` : ''}</dd>
${payment.unallocatedAmount > 0 ? `<dt>Not on an obligation</dt><dd>${money(payment.unallocatedAmount, cur)}</dd>` : ''}
${payment.unappliedReason ? `<dt>Why unapplied</dt><dd>${esc(words(payment.unappliedReason))}</dd>` : ''}
${payment.refund ? `<dt>Refund</dt><dd>${status(payment.refund.status)}</dd>` : ''}
${payment.reversedAt ? `<dt>Reversed</dt><dd>${when(visit, payment.reversedAt)}</dd>` : ''}
${payment.reversedAt ? `<dt>Reason</dt><dd>${esc(payment.reversalReason ?? 'None given')}</dd>` : ''}
${payment.receipt ? `<dt>Receipt</dt><dd><a href="${esc(new URL(payment.receipt.url).pathname)}">${esc(payment.receipt.number)}</a> <span class="note">(code ${esc(payment.receipt.code)})</span></dd>` : ''}
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

export async function reverse(reply: FastifyReply, visit: Visit, id: string, form: ConsoleForm) {
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
