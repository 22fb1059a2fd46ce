import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { ApiError } from './console.api.js';
import { esc, field, formStart, idempotencyKeyOf, notice, status, when } from './console.html.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import {
  type Failure,
  type FormShown,
  fieldsRefused,
  problemOf,
  redirectTo,
  refuse,
  settingsView,
} from './settings.common.js';

const PAGE = '/console/settings/test-clock';

interface TestClock {
  now: string;
  offsetMs: number;
  status: 'ready' | 'advancing';
}

const MESSAGES = {
  advanced: 'The test clock moved forward, and the work that fell due on the way has run.',
  advancing:
    'The test clock moved forward; the work that fell due on the way is still running in the background.',
};

const HOUR_MS = 3_600_000;

/** How far ahead of real time, in days and hours. */
function aheadText(offsetMs: number): string {
  if (offsetMs < HOUR_MS) return 'at real time';
  const days = Math.floor(offsetMs / (24 * HOUR_MS));
  const hours = Math.floor((offsetMs % (24 * HOUR_MS)) / HOUR_MS);
  const parts = [
    days ? `${days} day${days === 1 ? '' : 's'}` : '',
    hours ? `${hours} hour${hours === 1 ? '' : 's'}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return `${parts} ahead of real time`;
}

function advanceForm(visit: Visit, typed: ConsoleForm = {}, errors: Record<string, string> = {}): string {
  return `<div class="card settings-card"><h2>Move it forward</h2>
<p class="note">Everything that falls due on the way runs in order, as if the time had passed: instalments falling due and overdue, collection attempts and retries, reminders, expiries.</p>
${formStart(visit, PAGE, { label: 'Advance the test clock' })}
<div class="filters">
${field({ name: 'amount', label: 'How much', type: 'number', required: true, value: typed.amount ?? '1', attributes: 'min="1" step="1" inputmode="numeric"', ...(errors.amount ? { error: errors.amount } : {}) })}
${field({
  name: 'unit',
  label: 'Unit',
  value: typed.unit ?? 'days',
  options: [
    { value: 'days', label: 'days' },
    { value: 'hours', label: 'hours' },
  ],
})}
</div>
<div class="actions"><button type="submit">Advance the test clock</button></div>
</form></div>`;
}

async function clockPage(visit: Visit, options: FormShown): Promise<string | Failure> {
  if (visit.mode === 'live')
    return '<p>The test clock exists only in test mode: live data always runs on real time. Switch to test data (“View test data” above) to see and move it.</p>';
  const clock = await visit.api.get<TestClock>('/account/test-clock');
  if (!clock.ok) return { status: clock.status, error: clock.error };
  const errors = options.error?.details?.fields ?? {};
  return `${notice(options.done, MESSAGES)}${problemOf(options.error, { amount: 'How much' })}<div class="card settings-card"><dl class="facts">
<dt>Test time</dt><dd><strong>${when(visit, clock.data.now)}</strong> <span class="note">(${esc(visit.workspace.timeZone)})</span></dd>
<dt>Ahead</dt><dd>${esc(aheadText(clock.data.offsetMs))}</dd>
<dt>Status</dt><dd>${status(clock.data.status)}</dd>
</dl></div>
<p class="note">Test mode runs on its own clock: real time plus how far it was moved. It only moves forward, at most 10 years past real time.</p>
${visit.can('change_settings') ? advanceForm(visit, options.typed, errors) : ''}`;
}

const show = settingsView('Test clock', 'test-clock', clockPage);

export function testClockSettings(app: FastifyInstance, _ctx: AppContext) {
  app.get<{ Querystring: { done?: string } }>(
    '/test-clock',
    { schema: { hide: true } },
    async (request, reply) => show(reply, visitIn(request), { done: request.query.done }),
  );

  app.post<{ Body: ConsoleForm }>('/test-clock', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('change_settings'))
      return refuse(reply, visit, 'test-clock', 'Only an owner or admin moves the test clock.');
    if (visit.mode === 'live')
      return refuse(reply, visit, 'test-clock', 'The test clock exists only in test mode.');
    const form = request.body;
    const unit = form.unit === 'hours' ? 'hours' : 'days';
    const amount = (form.amount ?? '').trim();
    if (!/^[0-9]{1,7}$/.test(amount) || Number(amount) < 1) {
      const message = 'must be a whole number, 1 or more';
      return show(
        reply,
        visit,
        {
          error: fieldsRefused('The clock did not move: correct the field named below.', { amount: message }),
          typed: form,
        },
        422,
      );
    }
    const moved = await visit.api.send<TestClock>(
      'POST',
      '/account/test-clock/advance',
      { [unit]: Number(amount) },
      idempotencyKeyOf(form),
    );
    if (moved.ok) return redirectTo(reply, PAGE, moved.status === 202 ? 'advancing' : 'advanced');
    // The API names the field by its unit (days or hours); the form has one amount.
    const fields = moved.error.details?.fields ?? {};
    const message = fields[unit] ?? fields.to;
    const error: ApiError = message
      ? { ...moved.error, details: { ...moved.error.details, fields: { amount: message } } }
      : moved.error;
    return show(reply, visit, { error, typed: form }, moved.status);
  });
}
