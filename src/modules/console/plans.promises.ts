import type { FastifyReply } from 'fastify';
import { readAmount } from './amount-input.js';
import type { ApiError } from './console.api.js';
import { idempotencyKeyOf } from './console.html.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { notFoundPage, planPage } from './plan.page.js';
import {
  fieldErrors,
  formError,
  type Plan,
  planHref,
  readDate,
  renameFields,
  trimmed,
} from './plans.parts.js';
import type { PromiseToPay } from './plans.promises-section.js';

/** The promise forms of a plan's page: recording one, cancelling the open one. */

/** The API's names of the form's fields. */
const FIELD_NAMES = { amount: 'promise_amount', date: 'promise_date', note: 'promise_note' };

export async function recordPromise(reply: FastifyReply, visit: Visit, id: string, form: ConsoleForm) {
  const found = await visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`);
  if (!found.ok) return notFoundPage(reply, visit);
  const amount = readAmount(form.promise_amount, found.data.currency);
  const date = readDate(form.promise_date);
  const errors: Record<string, string> = {};
  if (!amount.ok) errors.promise_amount = amount.error;
  if (!date) errors.promise_date = 'Enter a date, like 2026-12-04.';
  if (!amount.ok || !date)
    return planPage(reply, visit, id, {
      status: 422,
      problem: formError(errors),
      promiseValues: form,
      promiseErrors: errors,
    });
  const note = trimmed(form.promise_note);
  const made = await visit.api.send<PromiseToPay>(
    'POST',
    '/promises',
    { trackId: id, amount: amount.minor, date, ...(note ? { note } : {}) },
    idempotencyKeyOf(form),
  );
  if (made.ok)
    return reply
      .code(303)
      .header('location', `${planHref(id)}?done=promise_recorded`)
      .send();
  const refused: ApiError = renameFields(made.error, FIELD_NAMES);
  return planPage(reply, visit, id, {
    status: made.status,
    problem: refused,
    promiseValues: form,
    promiseErrors: fieldErrors(refused),
  });
}

export async function cancelPromise(
  reply: FastifyReply,
  visit: Visit,
  id: string,
  promiseId: string,
  form: ConsoleForm,
) {
  const found = await visit.api.get<PromiseToPay>(`/promises/${encodeURIComponent(promiseId)}`);
  if (!found.ok || found.data.trackId !== id) return notFoundPage(reply, visit);
  const cancelled = await visit.api.send<PromiseToPay>(
    'POST',
    `/promises/${encodeURIComponent(promiseId)}/cancel`,
    undefined,
    idempotencyKeyOf(form),
  );
  if (cancelled.ok)
    return reply
      .code(303)
      .header('location', `${planHref(id)}?done=promise_cancelled`)
      .send();
  return planPage(reply, visit, id, { status: cancelled.status, problem: cancelled.error });
}
