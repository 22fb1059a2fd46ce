import type { FastifyReply } from 'fastify';
import { formatMoney } from '../../lib/money.js';
import { amountText, readAmount } from './amount-input.js';
import type { ApiError } from './console.api.js';
import { esc, field, formStart, idempotencyKeyOf, money } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { PAYMENT_LABELS } from './payment.page.js';
import {
  customerHref,
  fieldErrors,
  formError,
  type List,
  link,
  namesOf,
  type Obligation,
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
  trimmed,
} from './plans.parts.js';

/** The form that records a payment on a plan, its amount offered as what the plan asks now. */

const PAYMENT_FIELD_NAMES: Readonly<Record<string, string>> = { trackId: 'track_id', paidAt: 'paid_on' };

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

export async function recordPage(
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
${field({ label: 'Method', name: 'method', options: PAYMENT_METHODS, value: values.method ?? 'cash', error: errors.method })}
${field({ label: 'Reference (optional)', name: 'reference', value: values.reference, hint: 'A bank or receipt reference; each is used once in the workspace, so the same transfer is never counted twice.', error: errors.reference, attributes: 'maxlength="120" autocomplete="off"' })}
${field({ label: 'Paid on', name: 'paid_on', type: 'date', value: values.paid_on ?? todayOf(visit), hint: `Today or earlier, in ${visit.workspace.timeZone}.`, error: errors.paid_on, attributes: `max="${todayOf(visit)}"` })}
<div class="actions"><button type="submit">Record payment</button><a class="button secondary" href="${
    plan ? esc(planHref(plan.id)) : '/console/payments'
  }">Cancel</a></div>
</form>`;
  return sendPage(reply, visit, { title: 'Record a payment', section: 'payments', body }, code);
}

export async function record(reply: FastifyReply, visit: Visit, form: ConsoleForm) {
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
  if (!PAYMENT_METHODS.some((m) => m.value === method)) errors.method = 'Choose a method.';
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
