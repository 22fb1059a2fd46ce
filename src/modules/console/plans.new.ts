import type { FastifyReply } from 'fastify';
import { isCurrency } from '../../lib/money.js';
import { readAmount } from './amount-input.js';
import type { ApiError } from './console.api.js';
import { esc, field, formStart, idempotencyKeyOf } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { planPage } from './plan.page.js';
import {
  customerHref,
  fieldErrors,
  formError,
  type List,
  link,
  namesOf,
  type Plan,
  planHref,
  problemWith,
  readDate,
  renameFields,
  type Schedule,
  trimmed,
} from './plans.parts.js';
import {
  readSchedule,
  SCHEDULE_FIELD_NAMES,
  SCHEDULE_LABELS,
  scheduleFields,
} from './plans.schedule-form.js';

/** The form that creates a plan, with a collection schedule when one is filled in. */

const PLAN_FIELD_NAMES: Readonly<Record<string, string>> = { customerId: 'customer_id', dueDate: 'due_date' };
const PLAN_LABELS: Readonly<Record<string, string>> = {
  customer_id: 'Customer',
  title: 'Title',
  amount: 'Amount',
  currency: 'Currency',
  due_date: 'Final due date',
  ...SCHEDULE_LABELS,
};

export async function newPlanPage(
  reply: FastifyReply,
  visit: Visit,
  values: ConsoleForm,
  error: ApiError | null = null,
  code = 200,
) {
  const errors = fieldErrors(error);
  const customerId = trimmed(values.customer_id);
  let customerField: string;
  const fixed = customerId && values.customer_fixed === 'yes';
  const named = fixed ? await namesOf(visit, 'customers', [customerId]) : new Map<string, string>();
  if (fixed && named.has(customerId)) {
    customerField = `<p>Customer: ${link(customerHref(customerId), named.get(customerId), customerId)}${
      errors.customer_id ? ` <span class="field-error">${esc(errors.customer_id)}</span>` : ''
    }<input type="hidden" name="customer_id" value="${esc(customerId)}"><input type="hidden" name="customer_fixed" value="yes"></p>`;
  } else {
    const customers = await visit.api.get<List<{ id: string; name: string }>>('/customers', {
      status: 'active',
      limit: 100,
    });
    const list = customers.ok ? customers.data.items : [];
    customerField = field({
      label: 'Customer',
      name: 'customer_id',
      options: [
        { value: '', label: 'Choose a customer' },
        ...list.map((c) => ({ value: c.id, label: c.name })),
      ],
      value: customerId,
      required: true,
      ...(customers.ok && customers.data.has_more
        ? { hint: "The first 100 customers; for another, start the plan from the customer's page." }
        : {}),
      error: errors.customer_id ?? (fixed ? 'No such customer here: choose one.' : undefined),
    });
  }
  const currency = trimmed(values.currency) || visit.workspace.currency;
  const body = `${problemWith(error, PLAN_LABELS)}
${formStart(visit, '/console/plans', { label: 'New plan' })}
<fieldset class="group"><legend>The plan</legend>
${customerField}
${field({ label: 'Title', name: 'title', value: values.title, required: true, hint: 'What is being paid for, like "Fridge, 6 months".', error: errors.title, attributes: 'maxlength="200"' })}
${field({ label: 'Amount', name: 'amount', value: values.amount, required: true, hint: 'In the currency below, like 1,500.00.', error: errors.amount, attributes: 'inputmode="decimal" autocomplete="off"' })}
${field({ label: 'Currency', name: 'currency', value: currency, required: true, hint: `ISO code; ${visit.workspace.currency} unless you change it.`, error: errors.currency, attributes: 'maxlength="3" autocomplete="off"' })}
${field({ label: 'Final due date (optional)', name: 'due_date', type: 'date', value: values.due_date, error: errors.due_date })}
</fieldset>
<fieldset class="group"><legend>Collection schedule (optional)</legend>
${scheduleFields(visit, values, errors, { optional: true, currency })}
</fieldset>
<div class="actions"><button type="submit">Create plan</button><a class="button secondary" href="/console/plans">Cancel</a></div>
</form>`;
  return sendPage(reply, visit, { title: 'New plan', section: 'plans', body }, code);
}

export async function createPlan(reply: FastifyReply, visit: Visit, form: ConsoleForm) {
  const errors: Record<string, string> = {};
  const customerId = trimmed(form.customer_id);
  if (!customerId) errors.customer_id = 'Choose a customer.';
  const title = trimmed(form.title);
  if (!title) errors.title = 'Enter a title.';
  const currency = (trimmed(form.currency) || visit.workspace.currency).toUpperCase();
  const currencyOk = isCurrency(currency);
  if (!currencyOk) errors.currency = 'Enter a currency code such as NGN or USD.';
  const amount = readAmount(form.amount, currencyOk ? currency : visit.workspace.currency);
  if (!amount.ok) errors.amount = amount.error;
  const dueText = trimmed(form.due_date);
  const dueDate = dueText ? readDate(dueText) : undefined;
  if (dueText && !dueDate) errors.due_date = 'Enter the final due date as a date, or leave it empty.';
  const schedule = readSchedule(visit, form, {
    currency: currencyOk ? currency : visit.workspace.currency,
    total: amount.ok ? amount.minor : undefined,
    installments: null,
    optional: true,
  });
  if (!schedule.ok) Object.assign(errors, schedule.errors);
  if (Object.keys(errors).length > 0 || !amount.ok || !schedule.ok)
    return newPlanPage(reply, visit, form, formError(errors), 422);

  const key = idempotencyKeyOf(form);
  const made = await visit.api.send<Plan>(
    'POST',
    '/tracks',
    {
      customerId,
      title,
      amount: amount.minor,
      currency,
      ...(schedule.installments ? { installments: schedule.installments } : {}),
      ...(dueDate ? { dueDate } : {}),
    },
    key,
  );
  if (!made.ok)
    return newPlanPage(reply, visit, form, renameFields(made.error, PLAN_FIELD_NAMES), made.status);
  const plan = made.data;
  if (schedule.none)
    return reply
      .code(303)
      .header('location', `${planHref(plan.id)}?done=created`)
      .send();

  const added = await visit.api.send<Schedule>(
    'POST',
    '/collection-schedules',
    { ...schedule.body, target_id: plan.id },
    key ? `${key}:schedule` : undefined,
  );
  if (added.ok)
    return reply
      .code(303)
      .header('location', `${planHref(plan.id)}?done=created_with_schedule`)
      .send();
  // The plan stays: the refusal of its schedule is shown on the plan's page, with the schedule as typed.
  const refused = renameFields(added.error, SCHEDULE_FIELD_NAMES);
  return planPage(reply, visit, plan.id, {
    status: added.status,
    problem: refused,
    lead: `<div class="problem" role="alert"><strong>The plan ${link(planHref(plan.id), plan.title, plan.id)} was created, but its collection schedule was refused: ${esc(
      added.error.message,
    )}</strong> Correct the schedule below and add it, or leave the plan without one.${
      Object.keys(fieldErrors(refused)).length > 0
        ? `<ul>${Object.entries(fieldErrors(refused))
            .map(([name, message]) => `<li>${esc(SCHEDULE_LABELS[name] ?? name)}: ${esc(message)}</li>`)
            .join('')}</ul>`
        : ''
    }</div>`,
    scheduleValues: form,
    scheduleErrors: fieldErrors(refused),
  });
}
