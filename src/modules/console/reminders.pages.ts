import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Customer } from '../customers/customers.schemas.js';
import type { Reminder, ReminderSendAccepted } from '../reminders/reminders.schemas.js';
import type { Track } from '../tracks/tracks.schemas.js';
import type { ApiError } from './console.api.js';
import { esc, field, formStart, idempotencyKeyOf, money, problem } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { visitIn } from './console.visit.js';
import {
  backTo,
  balancesText,
  channelName,
  customerLink,
  fieldErrorOf,
  isId,
  lastReminder,
  phoneLinks,
  planLink,
  reminderSummary,
} from './customers.parts.js';

/** What a reminder is about: a plan of a customer, or the customer alone. */
interface Subject {
  customer: Customer;
  plan: Track | null;
}

async function subjectOf(
  visit: Visit,
  ids: { trackId?: string | undefined; customerId?: string | undefined },
) {
  if (isId(ids.trackId, 'trk')) {
    const plan = await visit.api.get<Track>(`/tracks/${ids.trackId}`);
    if (!plan.ok) return null;
    const customer = await visit.api.get<Customer>(`/customers/${plan.data.customerId}`);
    return customer.ok ? { customer: customer.data, plan: plan.data } : null;
  }
  if (isId(ids.customerId, 'cus')) {
    const customer = await visit.api.get<Customer>(`/customers/${ids.customerId}`);
    return customer.ok ? { customer: customer.data, plan: null } : null;
  }
  return null;
}

function missing(reply: FastifyReply, visit: Visit) {
  return sendPage(
    reply,
    visit,
    {
      title: 'Nothing to remind about',
      section: 'customers',
      body: '<p>There is no such plan or customer in this workspace and mode. <a href="/console/today">Back to today’s work</a> or <a href="/console/customers">find a customer</a>.</p>',
    },
    404,
  );
}

function refused(reply: FastifyReply, visit: Visit) {
  return sendPage(
    reply,
    visit,
    {
      title: 'Not allowed',
      section: 'customers',
      body: `<p>Your role (${esc(visit.person.role)}) cannot send reminders. Ask an owner, admin or collector.</p><p><a href="/console/today">Back to today’s work</a></p>`,
    },
    403,
  );
}

const CHANNELS = ['email', 'sms', 'whatsapp'] as const;

/** The channel the API takes when none is chosen (e-mail when the customer has an address, else SMS). */
const defaultChannel = (customer: Customer) => (customer.email ? 'email' : 'sms');

async function reminderForm(
  visit: Visit,
  subject: Subject,
  values: { channel?: string | undefined; message?: string | undefined; back: string },
  error: ApiError | null,
) {
  const { customer, plan } = subject;
  const last = await lastReminder(visit, plan ? { trackId: plan.id } : { customerId: customer.id });
  const facts = `<dl class="facts">
<dt>Customer</dt><dd>${customerLink(customer.id, customer.name)}</dd>
<dt>Phone</dt><dd>${phoneLinks(customer.phone, customer.name)}</dd>
<dt>E-mail</dt><dd>${customer.email ? esc(customer.email) : '<span class="note">None</span>'}</dd>
${plan ? `<dt>Plan</dt><dd>${planLink(plan.id, plan.title)}, ${money(plan.balance, plan.currency)} left</dd>` : `<dt>Balance</dt><dd>${balancesText(customer.balances)}</dd>`}
<dt>Last reminder</dt><dd>${reminderSummary(visit, last)}</dd>
${customer.optOuts.length ? `<dt>Opted out of</dt><dd>${esc(customer.optOuts.map(channelName).join(', '))}</dd>` : ''}
</dl>`;
  const options = CHANNELS.map((c) => ({
    value: c,
    label: `${channelName(c)}${c === 'email' ? (customer.email ? `: ${customer.email}` : ' (no address)') : `: ${customer.phone}`}${
      customer.optOuts.includes(c) ? ' (opted out)' : ''
    }`,
  }));
  return `${problem(error)}<div class="card">${facts}</div>
${formStart(visit, '/console/reminders', { label: 'Send a reminder' })}
${plan ? `<input type="hidden" name="track_id" value="${esc(plan.id)}">` : `<input type="hidden" name="customer_id" value="${esc(customer.id)}">`}
<input type="hidden" name="back" value="${esc(values.back)}">
${field({
  label: 'Channel',
  name: 'channel',
  value: values.channel ?? defaultChannel(customer),
  options,
  error: fieldErrorOf(error, 'channel'),
})}
${field({
  label: 'Message (optional)',
  name: 'message',
  type: 'textarea',
  value: values.message,
  hint: `Leave it empty to send the usual reminder, written with the ${plan ? 'plan' : 'customer'}’s figures of the moment.`,
  error: fieldErrorOf(error, 'message'),
  attributes: 'maxlength="2000"',
})}
<div class="actions"><button type="submit">Send reminder now</button> <a class="button secondary" href="${esc(values.back)}">Cancel</a></div>
</form>`;
}

/** The form to send a reminder now, about a plan (`?track_id=`) or a customer (`?customer_id=`). */
export function remindersPages(app: FastifyInstance, _ctx: AppContext) {
  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/reminders/new',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('send_reminder')) return refused(reply, visit);
      const query = request.query ?? {};
      const subject = await subjectOf(visit, { trackId: query.track_id, customerId: query.customer_id });
      if (!subject) return missing(reply, visit);
      const back = backTo(query.back, `/console/customers/${subject.customer.id}`);
      return sendPage(reply, visit, {
        title: `Send a reminder to ${subject.customer.name}`,
        section: back === '/console/today' ? 'today' : 'customers',
        body: await reminderForm(visit, subject, { back }, null),
      });
    },
  );

  app.post<{ Body: ConsoleForm }>('/reminders', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('send_reminder')) return refused(reply, visit);
    const form = request.body ?? {};
    const subject = await subjectOf(visit, { trackId: form.track_id, customerId: form.customer_id });
    if (!subject) return missing(reply, visit);
    const back = backTo(form.back, `/console/customers/${subject.customer.id}`);
    const message = (form.message ?? '').trim();
    const channel = form.channel ?? '';
    const key = idempotencyKeyOf(form);
    const again = (error: ApiError, status: number) =>
      reminderForm(visit, subject, { channel, message, back }, error).then((body) =>
        sendPage(
          reply,
          visit,
          {
            title: `Send a reminder to ${subject.customer.name}`,
            section: back === '/console/today' ? 'today' : 'customers',
            body,
          },
          status,
        ),
      );
    const queued = await visit.api.send<Reminder>(
      'POST',
      '/reminders',
      {
        ...(subject.plan ? { trackId: subject.plan.id } : { customerId: subject.customer.id }),
        ...(channel ? { channel } : {}),
        ...(message ? { message } : {}),
      },
      key,
    );
    if (!queued.ok) return again(queued.error, queued.status);
    const sent = await visit.api.send<ReminderSendAccepted>(
      'POST',
      '/reminders/send',
      { reminderIds: [queued.data.id] },
      key ? `${key}:send` : undefined,
    );
    if (!sent.ok) return again(sent.error, sent.status);
    const separator = back.includes('?') ? '&' : '?';
    return reply.code(303).header('location', `${back}${separator}done=reminder_sent`).send();
  });
}
