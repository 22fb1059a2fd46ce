import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import type { ApiError } from './console.api.js';
import {
  esc,
  field,
  formStart,
  idempotencyKeyOf,
  notice,
  pager,
  problem,
  status,
  table,
  when,
} from './console.html.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import {
  type Failure,
  type FormShown,
  missing,
  notGiven,
  problemOf,
  redirectTo,
  refuse,
  sendSettings,
  settingsView,
} from './settings.common.js';

const PAGE = '/console/settings/webhooks';

interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  status: 'enabled' | 'disabled';
  createdAt: string;
  updatedAt: string;
  disabledAt: string | null;
}

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  attemptNumber: number;
  status: 'succeeded' | 'failed';
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
  nextAttemptAt: string | null;
}

interface List<T> {
  items: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const MESSAGES = {
  disabled: 'The endpoint is disabled: nothing more is delivered to it, retries included.',
  enabled: 'The endpoint is enabled again.',
  tested:
    'A test event (webhook.test) is queued for this endpoint; its delivery appears below within seconds.',
  resent: 'The event is queued to be delivered again; the new attempt appears below within seconds.',
};

const LABELS = { url: 'URL', description: 'Description', eventTypes: 'Events' };

const typesText = (types: readonly string[]) => (types.includes('*') ? 'all events' : types.join(', '));

/** Event types as typed: separated by commas, spaces or lines; none means all. */
const typesOf = (text: string | undefined) =>
  (text ?? '')
    .split(/[\s,]+/)
    .map((type) => type.trim())
    .filter((type) => type !== '');

function createForm(
  ctx: AppContext,
  visit: Visit,
  typed: ConsoleForm = {},
  errors: Record<string, string> = {},
): string {
  const known = ctx.registry.eventTypes.map((type) => `<code>${esc(type)}</code>`).join(', ');
  return `<div class="card settings-card"><h2>Add an endpoint</h2>
<p class="note">Events of ${visit.mode === 'live' ? 'live' : 'test'} mode are posted to it, signed (Standard Webhooks) with a secret shown once, when it is made.</p>
${formStart(visit, PAGE, { label: 'Add a webhook endpoint' })}
${field({ name: 'url', label: 'URL', type: 'url', required: true, value: typed.url ?? '', hint: 'https address of your receiver.', attributes: 'maxlength="2048" autocomplete="off"', ...(errors.url ? { error: errors.url } : {}) })}
${field({ name: 'description', label: 'Description', hint: 'Optional.', value: typed.description ?? '', attributes: 'maxlength="2000" autocomplete="off"', ...(errors.description ? { error: errors.description } : {}) })}
${field({ name: 'eventTypes', label: 'Events', hint: 'Event types separated by commas, such as payment.recorded, track.completed; empty for all events.', value: typed.eventTypes ?? '', attributes: 'autocomplete="off"', ...(errors.eventTypes ? { error: errors.eventTypes } : {}) })}
<details><summary>Event types</summary><p class="event-types">${known}</p></details>
<div class="actions"><button type="submit">Add endpoint</button></div>
</form></div>`;
}

type ListShown = FormShown & { cursor?: string };

async function listPage(ctx: AppContext, visit: Visit, shown: ListShown): Promise<string | Failure> {
  const list = await visit.api.get<List<Endpoint>>('/webhooks', { limit: 50, cursor: shown.cursor });
  if (!list.ok) return list;
  const rows = table(
    'Webhook endpoints',
    [
      {
        head: 'Endpoint',
        cell: (e: Endpoint) =>
          `<a class="endpoint" href="${PAGE}/${encodeURIComponent(e.id)}">${esc(e.url)}</a>${
            e.description ? `<br><span class="note">${esc(e.description)}</span>` : ''
          }`,
      },
      { head: 'Events', cell: (e: Endpoint) => esc(typesText(e.eventTypes)) },
      { head: 'Status', cell: (e: Endpoint) => status(e.status) },
      { head: 'Added', cell: (e: Endpoint) => when(visit, e.createdAt) },
    ],
    list.data.items,
    'No endpoints yet.',
  );
  const errors = shown.error?.details?.fields ?? {};
  return `${notice(shown.done, MESSAGES)}${problemOf(shown.error, LABELS)}${rows}${pager(PAGE, {}, list.data.next_cursor)}${
    visit.can('change_settings') ? createForm(ctx, visit, shown.typed, errors) : ''
  }`;
}

function createdPage(endpoint: Endpoint & { secret: string }): string {
  return `<div class="notice" role="status">The endpoint is added.</div>
<div class="card settings-card"><h2>Its signing secret</h2>
<p><strong>Copy it now: it is shown only this once.</strong> Your receiver checks each delivery's signature with it.</p>
<p><label for="signing-secret">Signing secret</label><input id="signing-secret" class="secret" type="text" readonly value="${esc(endpoint.secret)}"></p>
<dl class="facts"><dt>URL</dt><dd>${esc(endpoint.url)}</dd><dt>Events</dt><dd>${esc(typesText(endpoint.eventTypes))}</dd><dt>Id</dt><dd>${esc(endpoint.id)}</dd></dl>
<p><a href="${PAGE}/${encodeURIComponent(endpoint.id)}">See the endpoint</a> · <a href="${PAGE}">Back to the endpoints</a></p></div>`;
}

async function endpointPage(
  visit: Visit,
  id: string,
  query: { done?: string; cursor?: string },
  error: ApiError | null = null,
): Promise<{ body: string; title: string } | Failure> {
  const [endpoint, deliveries] = await Promise.all([
    visit.api.get<Endpoint>(`/webhooks/${encodeURIComponent(id)}`),
    visit.api.get<List<Delivery>>(`/webhooks/${encodeURIComponent(id)}/deliveries`, {
      limit: 50,
      cursor: query.cursor,
    }),
  ]);
  if (!endpoint.ok) return { status: endpoint.status, error: endpoint.error };
  if (!deliveries.ok) return { status: deliveries.status, error: deliveries.error };
  const e = endpoint.data;
  const changing = visit.can('change_settings');
  const action = (path: string, label: string, className = 'secondary') =>
    `${formStart(visit, `${PAGE}/${encodeURIComponent(e.id)}/${path}`, { className: 'inline' })}<button type="submit" class="${className}">${esc(label)}</button></form>`;
  const actions = changing
    ? `<div class="actions">${
        e.status === 'enabled'
          ? `${action('test', 'Send a test event')}${action('disable', 'Disable endpoint', 'danger')}`
          : action('enable', 'Enable endpoint')
      }</div>`
    : '';
  const resend = (d: Delivery) =>
    `${formStart(visit, `${PAGE}/${encodeURIComponent(e.id)}/resend`, { className: 'inline' })}<input type="hidden" name="event_id" value="${esc(d.eventId)}"><button type="submit" class="secondary" aria-label="Resend ${esc(d.eventType)} ${esc(d.eventId)}">Resend</button></form>`;
  const rows = table(
    'Deliveries, newest first',
    [
      {
        head: 'Event',
        cell: (d: Delivery) => `${esc(d.eventType)}<br><span class="note">${esc(d.eventId)}</span>`,
      },
      { head: 'Try', cell: (d: Delivery) => esc(d.attemptNumber), numeric: true },
      {
        head: 'Result',
        cell: (d: Delivery) =>
          `${status(d.status)}${d.responseStatus !== null ? ` HTTP ${esc(d.responseStatus)}` : ''}${
            d.error ? `<br><span class="note">${esc(d.error)}</span>` : ''
          }`,
      },
      {
        head: 'When',
        cell: (d: Delivery) =>
          `${when(visit, d.attemptedAt)}${d.nextAttemptAt ? `<br><span class="note">next try ${when(visit, d.nextAttemptAt)}</span>` : ''}`,
      },
      ...(changing && e.status === 'enabled' ? [{ head: 'Again', cell: resend }] : []),
    ],
    deliveries.data.items,
    'Nothing delivered yet.',
  );
  return {
    title: 'Webhook endpoint',
    body: `${notice(query.done, MESSAGES)}${problem(error)}<div class="card settings-card"><dl class="facts">
<dt>URL</dt><dd>${esc(e.url)}</dd>
<dt>Description</dt><dd>${e.description ? esc(e.description) : '<span class="note">none</span>'}</dd>
<dt>Events</dt><dd>${esc(typesText(e.eventTypes))}</dd>
<dt>Status</dt><dd>${status(e.status)}${e.disabledAt ? ` since ${when(visit, e.disabledAt)}` : ''}</dd>
<dt>Added</dt><dd>${when(visit, e.createdAt)}</dd>
<dt>Id</dt><dd>${esc(e.id)}</dd>
</dl>${actions}</div>
${rows}${pager(`${PAGE}/${encodeURIComponent(e.id)}`, {}, deliveries.data.next_cursor)}
<p><a href="${PAGE}">Back to the endpoints</a></p>`,
  };
}

async function showEndpoint(
  reply: FastifyReply,
  visit: Visit,
  id: string,
  query: { done?: string; cursor?: string },
  failure: Failure | null = null,
) {
  const shown = await endpointPage(visit, id, query, failure?.error ?? null);
  if ('error' in shown) return notGiven(reply, visit, 'webhooks', 'webhook endpoint', shown);
  return sendSettings(
    reply,
    visit,
    { title: shown.title, page: 'webhooks', body: shown.body },
    failure?.status ?? 200,
  );
}

export function webhooksSettings(app: FastifyInstance, ctx: AppContext) {
  const showList = settingsView('Webhooks', 'webhooks', (visit, shown: ListShown) =>
    listPage(ctx, visit, shown),
  );

  app.get<{ Querystring: { done?: string; cursor?: string } }>(
    '/webhooks',
    { schema: { hide: true } },
    async (request, reply) =>
      showList(reply, visitIn(request), { done: request.query.done, cursor: request.query.cursor }),
  );

  app.post<{ Body: ConsoleForm }>('/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('change_settings'))
      return refuse(reply, visit, 'webhooks', 'Only an owner or admin adds webhook endpoints.');
    const form = request.body;
    const types = typesOf(form.eventTypes);
    const description = (form.description ?? '').trim();
    const created = await visit.api.send<Endpoint & { secret: string }>(
      'POST',
      '/webhooks',
      {
        url: (form.url ?? '').trim(),
        ...(description ? { description } : {}),
        ...(types.length > 0 ? { eventTypes: types } : {}),
      },
      idempotencyKeyOf(form),
    );
    if (created.ok)
      return sendSettings(
        reply,
        visit,
        { title: 'Webhook endpoint added', page: 'webhooks', body: createdPage(created.data) },
        201,
      );
    return showList(reply, visit, { error: created.error, typed: form }, created.status);
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string; cursor?: string } }>(
    '/webhooks/:id',
    { schema: { hide: true } },
    async (request, reply) => showEndpoint(reply, visitIn(request), request.params.id, request.query),
  );

  /** One change of an endpoint through the API: back to its page, with what happened or the API's refusal. */
  function change(
    path: string,
    call: (visit: Visit, id: string, form: ConsoleForm) => ReturnType<Visit['api']['send']>,
    done: keyof typeof MESSAGES,
  ) {
    app.post<{ Params: { id: string }; Body: ConsoleForm }>(
      `/webhooks/:id/${path}`,
      { schema: { hide: true } },
      async (request, reply) => {
        const visit = visitIn(request);
        if (!visit.can('change_settings'))
          return refuse(reply, visit, 'webhooks', 'Only an owner or admin changes webhook endpoints.');
        const id = request.params.id;
        if (path === 'resend' && !/^evt_[0-9A-Za-z]{1,60}$/.test(request.body.event_id ?? ''))
          return showEndpoint(
            reply,
            visit,
            id,
            {},
            {
              status: 422,
              error: { code: 'validation_error', message: 'Choose a delivery to send again.' },
            },
          );
        const answer = await call(visit, id, request.body);
        if (answer.ok) return redirectTo(reply, `${PAGE}/${encodeURIComponent(id)}`, done);
        if (answer.status === 404 && answer.error.details?.resource !== 'event')
          return missing(reply, visit, 'webhooks', 'webhook endpoint');
        return showEndpoint(reply, visit, id, {}, { status: answer.status, error: answer.error });
      },
    );
  }

  const at = (id: string) => `/webhooks/${encodeURIComponent(id)}`;
  change('disable', (visit, id) => visit.api.send('DELETE', at(id)), 'disabled');
  change('enable', (visit, id) => visit.api.send('PATCH', at(id), { status: 'enabled' }), 'enabled');
  change(
    'test',
    (visit, id, form) => visit.api.send('POST', `${at(id)}/test`, undefined, idempotencyKeyOf(form)),
    'tested',
  );
  change(
    'resend',
    (visit, id, form) =>
      visit.api.send(
        'POST',
        `/events/${encodeURIComponent(form.event_id ?? '')}/resend`,
        { endpointId: id },
        idempotencyKeyOf(form),
      ),
    'resent',
  );
}
