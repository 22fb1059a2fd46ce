import type { FastifyReply } from 'fastify';
import type { ApiError } from './console.api.js';
import { day, esc, field, formStart, idempotencyKeyOf, money, status } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { notFoundPage } from './plan.page.js';
import { OPEN_STATES, obligationKind, waiveHref } from './plans.obligations-section.js';
import {
  fieldErrors,
  formError,
  type List,
  type Obligation,
  type Plan,
  planHref,
  problemWith,
  renameFields,
  trimmed,
} from './plans.parts.js';

/** Waiving a plan's late fee: the page that asks why, and the form it posts. */

/** The plan and its obligations (up to 1,000, a page of 100 at a time), or nothing without the plan. */
async function planWithObligations(visit: Visit, id: string) {
  const plan = await visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`);
  if (!plan.ok) return undefined;
  const obligations: Obligation[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const found = await visit.api.get<List<Obligation>>('/obligations', { track_id: id, limit: 100, cursor });
    if (!found.ok) break;
    obligations.push(...found.data.items);
    if (!found.data.next_cursor) break;
    cursor = found.data.next_cursor;
  }
  return { plan: plan.data, obligations };
}

export async function waivePage(
  reply: FastifyReply,
  visit: Visit,
  id: string,
  obligationId: string,
  state: { values?: ConsoleForm; error?: ApiError; status?: number } = {},
) {
  const found = await planWithObligations(visit, id);
  const fee = found?.obligations.find((o) => o.id === obligationId && o.kind === 'fee');
  if (!found || !fee) return notFoundPage(reply, visit);
  const errors = fieldErrors(state.error);
  const facts = `<section class="card" aria-label="The late fee">
<dl class="facts">
<dt>Plan</dt><dd><a href="${esc(planHref(id))}">${esc(found.plan.title)}</a></dd>
<dt>What</dt><dd>${obligationKind(fee, found.obligations)}</dd>
<dt>Due</dt><dd>${day(fee.due_date)}</dd>
<dt>Amount</dt><dd>${money(fee.amount, fee.currency)}</dd>
<dt>Still due</dt><dd>${money(fee.amount_due, fee.currency)}</dd>
<dt>Status</dt><dd>${status(fee.status)}</dd>
</dl></section>`;
  const form = OPEN_STATES.includes(fee.status)
    ? `<p>Waiving lowers the plan's balance by ${money(fee.amount_due, fee.currency)}; the fee stays on the statement as waived.</p>
${formStart(visit, waiveHref(id, obligationId), { label: 'Waive the late fee' })}
${field({ label: 'Reason', name: 'waive_reason', type: 'textarea', value: state.values?.waive_reason, required: true, hint: 'Kept on the ledger and in the audit trail.', error: errors.waive_reason, attributes: 'maxlength="500"' })}
<div class="actions"><button type="submit">Waive fee</button><a class="button secondary" href="${esc(planHref(id))}">Back to the plan</a></div>
</form>`
    : `<p class="note">This fee is no longer open: nothing to waive.</p><p><a href="${esc(planHref(id))}">Back to the plan</a></p>`;
  const body = `${problemWith(state.error, { waive_reason: 'Reason' })}${facts}${form}`;
  return sendPage(reply, visit, { title: 'Waive a late fee', section: 'plans', body }, state.status ?? 200);
}

export async function waiveFee(
  reply: FastifyReply,
  visit: Visit,
  id: string,
  obligationId: string,
  form: ConsoleForm,
) {
  const reason = trimmed(form.waive_reason);
  if (!reason)
    return waivePage(reply, visit, id, obligationId, {
      values: form,
      error: formError({ waive_reason: 'Say why the fee is waived.' }),
      status: 422,
    });
  const found = await planWithObligations(visit, id);
  if (!found?.obligations.some((o) => o.id === obligationId && o.kind === 'fee'))
    return notFoundPage(reply, visit);
  const waived = await visit.api.send<Obligation>(
    'POST',
    `/obligations/${encodeURIComponent(obligationId)}/waive`,
    { reason },
    idempotencyKeyOf(form),
  );
  if (waived.ok)
    return reply
      .code(303)
      .header('location', `${planHref(id)}?done=fee_waived`)
      .send();
  return waivePage(reply, visit, id, obligationId, {
    values: form,
    error: renameFields(waived.error, { reason: 'waive_reason' }),
    status: waived.status,
  });
}
