import type { FastifyReply } from 'fastify';
import { readAmount } from './amount-input.js';
import type { ApiError } from './console.api.js';
import { esc, field, formStart, idempotencyKeyOf, status, when } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { notFoundPage, planPage } from './plan.page.js';
import {
  DISPUTE_LABELS,
  DISPUTE_REASONS,
  type Dispute,
  disputedThing,
  disputeHref,
  reasonWords,
} from './plans.disputes-section.js';
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

/** The dispute forms: opening one on a plan, and the page that rejects or accepts an open one. */

const OPEN_FIELDS = { reason: 'dispute_reason', note: 'dispute_note' };
const RESOLVE_FIELDS = { 'action.amount': 'write_off_amount', note: 'resolve_note', action: 'accept_action' };

export async function openDispute(reply: FastifyReply, visit: Visit, id: string, form: ConsoleForm) {
  const found = await visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`);
  if (!found.ok) return notFoundPage(reply, visit);
  const reason = trimmed(form.dispute_reason);
  if (!DISPUTE_REASONS.some((r) => r.value === reason)) {
    const errors = { dispute_reason: 'Choose the reason the customer gives.' };
    return planPage(reply, visit, id, {
      status: 422,
      problem: formError(errors),
      disputeValues: form,
      disputeErrors: errors,
    });
  }
  const note = trimmed(form.dispute_note);
  const opened = await visit.api.send<Dispute>(
    'POST',
    '/disputes',
    { trackId: id, reason, ...(note ? { note } : {}) },
    idempotencyKeyOf(form),
  );
  if (opened.ok)
    return reply
      .code(303)
      .header('location', `${planHref(id)}?done=dispute_opened`)
      .send();
  const refused: ApiError = renameFields(opened.error, OPEN_FIELDS);
  return planPage(reply, visit, id, {
    status: opened.status,
    problem: refused,
    disputeValues: form,
    disputeErrors: fieldErrors(refused),
  });
}

/** The plan and the dispute of a resolve page, or nothing when the dispute is not the plan's. */
async function disputeOfPlan(visit: Visit, id: string, disputeId: string) {
  const [plan, dispute] = await Promise.all([
    visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`),
    visit.api.get<Dispute>(`/disputes/${encodeURIComponent(disputeId)}`),
  ]);
  if (!plan.ok || !dispute.ok || dispute.data.trackId !== id) return undefined;
  return { plan: plan.data, dispute: dispute.data };
}

export async function resolvePage(
  reply: FastifyReply,
  visit: Visit,
  id: string,
  disputeId: string,
  state: { values?: ConsoleForm; error?: ApiError; status?: number } = {},
) {
  const found = await disputeOfPlan(visit, id, disputeId);
  if (!found) return notFoundPage(reply, visit);
  const { plan, dispute } = found;
  const obligations = await visit.api.get<List<Obligation>>('/obligations', { track_id: id, limit: 100 });
  const values = state.values ?? {};
  const errors = fieldErrors(state.error);
  const action = disputeHref(id, disputeId);
  const facts = `<section class="card" aria-label="The dispute">
<dl class="facts">
<dt>Plan</dt><dd><a href="${esc(planHref(id))}">${esc(plan.title)}</a></dd>
<dt>On</dt><dd>${disputedThing(dispute, obligations.ok ? obligations.data.items : [], plan.currency)}</dd>
<dt>Reason</dt><dd>${esc(reasonWords(dispute.reason))}</dd>
${dispute.note ? `<dt>What the customer says</dt><dd>${esc(dispute.note)}</dd>` : ''}
<dt>Opened</dt><dd>${when(visit, dispute.createdAt)}</dd>
<dt>Status</dt><dd>${status(dispute.status)}</dd>
</dl></section>`;
  const forms =
    dispute.status !== 'open'
      ? '<p class="note">This dispute is resolved.</p>'
      : `<section class="card" aria-labelledby="reject"><h2 id="reject">Reject</h2>
<p class="note">The customer owes what the plan says: reminders, debits and late fees resume.</p>
${formStart(visit, action, { label: 'Reject the dispute' })}<input type="hidden" name="outcome" value="rejected">
${field({ label: 'Note (optional)', name: 'reject_note', type: 'textarea', value: values.reject_note, error: values.outcome === 'rejected' ? errors.resolve_note : undefined, attributes: 'maxlength="500"' })}
<div class="actions"><button type="submit" class="secondary">Reject</button></div>
</form></section>
<section class="card" aria-labelledby="accept"><h2 id="accept">Accept</h2>
<p class="note">The customer is right. Accept only, or write off what they should not pay.</p>
${formStart(visit, action, { label: 'Accept the dispute' })}<input type="hidden" name="outcome" value="accepted">
${field({
  label: 'What to do',
  name: 'accept_action',
  options: [
    { value: '', label: 'Accept only' },
    { value: 'write_off', label: 'Accept and write off' },
  ],
  value: values.accept_action,
  error: errors.accept_action,
})}
${field({ label: `Amount to write off (${plan.currency}, optional)`, name: 'write_off_amount', value: values.write_off_amount, hint: `Only with "Accept and write off". Empty: ${dispute.obligationId ? 'what the disputed obligation still asks' : 'the whole balance'}.`, error: errors.write_off_amount, attributes: 'inputmode="decimal" autocomplete="off"' })}
${field({ label: 'Note (optional)', name: 'accept_note', type: 'textarea', value: values.accept_note, error: values.outcome === 'accepted' ? errors.resolve_note : undefined, attributes: 'maxlength="500"' })}
<div class="actions"><button type="submit">Accept</button><a class="button secondary" href="${esc(planHref(id))}">Back to the plan</a></div>
</form></section>`;
  const body = `${problemWith(state.error, DISPUTE_LABELS)}${facts}${forms}`;
  return sendPage(
    reply,
    visit,
    { title: `Dispute: ${reasonWords(dispute.reason)}`, section: 'plans', body },
    state.status ?? 200,
  );
}

export async function resolveDispute(
  reply: FastifyReply,
  visit: Visit,
  id: string,
  disputeId: string,
  form: ConsoleForm,
) {
  const found = await disputeOfPlan(visit, id, disputeId);
  if (!found) return notFoundPage(reply, visit);
  const outcome = form.outcome === 'accepted' ? 'accepted' : form.outcome === 'rejected' ? 'rejected' : null;
  const refuse = (fields: Record<string, string>) =>
    resolvePage(reply, visit, id, disputeId, { values: form, error: formError(fields), status: 422 });
  if (!outcome) return refuse({ outcome: 'Choose Reject or Accept.' });
  const note = trimmed(outcome === 'accepted' ? form.accept_note : form.reject_note);
  let action: { type: 'write_off'; amount?: number } | undefined;
  if (outcome === 'accepted' && form.accept_action === 'write_off') {
    const typed = trimmed(form.write_off_amount);
    const amount = typed ? readAmount(typed, found.plan.currency) : undefined;
    if (amount && !amount.ok) return refuse({ write_off_amount: amount.error });
    action = { type: 'write_off', ...(amount?.ok ? { amount: amount.minor } : {}) };
  } else if (outcome === 'accepted' && trimmed(form.accept_action) !== '') {
    return refuse({ accept_action: 'Choose what to do.' });
  }
  const resolved = await visit.api.send<Dispute>(
    'POST',
    `/disputes/${encodeURIComponent(disputeId)}/resolve`,
    { outcome, ...(action ? { action } : {}), ...(note ? { note } : {}) },
    idempotencyKeyOf(form),
  );
  if (resolved.ok)
    return reply
      .code(303)
      .header('location', `${planHref(id)}?done=dispute_${outcome}`)
      .send();
  return resolvePage(reply, visit, id, disputeId, {
    values: form,
    error: renameFields(resolved.error, RESOLVE_FIELDS),
    status: resolved.status,
  });
}
