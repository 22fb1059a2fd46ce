import type { FastifyReply } from 'fastify';
import type { ApiError } from './console.api.js';
import { idempotencyKeyOf } from './console.html.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { ACTIONS, notFoundPage, planPage } from './plan.page.js';
import { fieldErrors, formError, type Plan, planHref, renameFields, type Schedule } from './plans.parts.js';
import { readSchedule, SCHEDULE_FIELD_NAMES } from './plans.schedule-form.js';
import { type ActionResult, cancelPage, fingerprint, previewPage } from './plans.schedule-preview.js';

/** The schedule forms of a plan's page: adding a schedule, and its actions (confirmed first where they ask). */

const DONE_OF: Readonly<Record<string, string>> = {
  activate: 'activated',
  pause: 'paused',
  resume: 'resumed',
  cancel: 'cancelled',
  generate_obligations: 'generated',
  sync_payment_plan: 'synced',
};

export async function addSchedule(reply: FastifyReply, visit: Visit, id: string, form: ConsoleForm) {
  const found = await visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`);
  if (!found.ok) return notFoundPage(reply, visit);
  const plan = found.data;
  const read = readSchedule(visit, form, {
    currency: plan.currency,
    total: plan.balance,
    installments: plan.installments,
    optional: false,
  });
  if (!read.ok || read.none)
    return planPage(reply, visit, id, {
      status: 422,
      problem: formError(read.ok ? {} : read.errors),
      scheduleValues: form,
      scheduleErrors: read.ok ? {} : read.errors,
    });
  const added = await visit.api.send<Schedule>(
    'POST',
    '/collection-schedules',
    { ...read.body, target_id: plan.id },
    idempotencyKeyOf(form),
  );
  if (added.ok)
    return reply
      .code(303)
      .header('location', `${planHref(id)}?done=schedule_added`)
      .send();
  const refused = renameFields(added.error, SCHEDULE_FIELD_NAMES);
  return planPage(reply, visit, id, {
    status: added.status,
    problem: refused,
    scheduleValues: form,
    scheduleErrors: fieldErrors(refused),
  });
}

export async function actOnSchedule(
  reply: FastifyReply,
  visit: Visit,
  id: string,
  scheduleId: string,
  form: ConsoleForm,
) {
  const [found, got] = await Promise.all([
    visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`),
    visit.api.get<Schedule>(`/collection-schedules/${encodeURIComponent(scheduleId)}`),
  ]);
  if (!found.ok || !got.ok || got.data.target_id !== id) return notFoundPage(reply, visit);
  const plan = found.data;
  const schedule = got.data;
  const action = ACTIONS.find((a) => a.action === form.action)?.action;
  if (!action)
    return planPage(reply, visit, id, {
      status: 422,
      problem: { code: 'validation_error', message: 'Choose one of the buttons of a schedule.' },
    });
  const path = `/collection-schedules/${encodeURIComponent(schedule.id)}`;
  const confirmed = form.confirmed === 'yes';
  const done = () =>
    reply
      .code(303)
      .header('location', `${planHref(id)}?done=${DONE_OF[action]}`)
      .send();
  const refused = (error: ApiError, code: number) =>
    planPage(reply, visit, id, { status: code, problem: error });

  if (action === 'cancel' && !confirmed) return cancelPage(reply, visit, plan, schedule);
  if (action === 'sync_payment_plan' || action === 'generate_obligations') {
    const preview = await visit.api.send<ActionResult>('PATCH', path, { action, dry_run: true });
    if (!preview.ok) return refused(preview.error, preview.status);
    if (!confirmed) return previewPage(reply, visit, plan, schedule, action, preview.data);
    if (fingerprint(preview.data.changes) !== form.preview)
      return previewPage(reply, visit, plan, schedule, action, preview.data, true);
  }
  const acted = await visit.api.send<ActionResult>('PATCH', path, { action });
  return acted.ok ? done() : refused(acted.error, acted.status);
}
