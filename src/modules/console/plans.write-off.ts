import type { FastifyReply } from 'fastify';
import { formatMoney } from '../../lib/money.js';
import { readAmount } from './amount-input.js';
import { idempotencyKeyOf } from './console.html.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { notFoundPage, planPage } from './plan.page.js';
import { fieldErrors, formError, type Plan, planHref, renameFields, trimmed } from './plans.parts.js';

/** The write-off forms of a plan's page: writing off (part of) the balance, reversing the last write-off. */

const FIELD_NAMES = { amount: 'write_off_amount', reason: 'write_off_reason' };

export async function writeOff(reply: FastifyReply, visit: Visit, id: string, form: ConsoleForm) {
  const found = await visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`);
  if (!found.ok) return notFoundPage(reply, visit);
  const typed = trimmed(form.write_off_amount);
  const amount = typed ? readAmount(typed, found.data.currency) : undefined;
  const reason = trimmed(form.write_off_reason);
  const errors: Record<string, string> = {};
  if (amount && !amount.ok) errors.write_off_amount = amount.error;
  if (!reason) errors.write_off_reason = 'Say why it is written off.';
  else if (reason.length > 500) errors.write_off_reason = 'At most 500 characters.';
  if (Object.keys(errors).length > 0)
    return planPage(reply, visit, id, {
      status: 422,
      problem: formError(errors),
      writeOffValues: form,
      writeOffErrors: errors,
    });
  const done = await visit.api.send<Plan>(
    'POST',
    `/tracks/${encodeURIComponent(id)}/write-off`,
    { reason, ...(amount?.ok ? { amount: amount.minor } : {}) },
    idempotencyKeyOf(form),
  );
  if (done.ok)
    return reply
      .code(303)
      .header('location', `${planHref(id)}?done=written_off`)
      .send();
  const refused = renameFields(done.error, FIELD_NAMES);
  const fields = refused.details?.fields;
  if (fields?.write_off_amount?.includes('at most'))
    fields.write_off_amount = `More than the plan's balance of ${formatMoney(found.data.balance, found.data.currency)}.`;
  return planPage(reply, visit, id, {
    status: done.status,
    problem: refused,
    writeOffValues: form,
    writeOffErrors: fieldErrors(refused),
  });
}

export async function reverseWriteOff(reply: FastifyReply, visit: Visit, id: string, form: ConsoleForm) {
  const done = await visit.api.send<Plan>(
    'POST',
    `/tracks/${encodeURIComponent(id)}/write-off/reverse`,
    undefined,
    idempotencyKeyOf(form),
  );
  if (done.ok)
    return reply
      .code(303)
      .header('location', `${planHref(id)}?done=write_off_reversed`)
      .send();
  if (done.status === 404) return notFoundPage(reply, visit);
  return planPage(reply, visit, id, { status: done.status, problem: done.error });
}
