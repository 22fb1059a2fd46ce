import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { localDate } from '../../lib/calendar.js';
import type { Customer } from '../customers/customers.schemas.js';
import type { LedgerEntry } from '../ledger/ledger.schemas.js';
import type { Mandate } from '../mandates/mandates.schemas.js';
import type { Payment } from '../payments/payments.schemas.js';
import type { Reminder } from '../reminders/reminders.schemas.js';
import type { ObligationListItem } from '../schedules/schedules.schemas.js';
import type { Track } from '../tracks/tracks.schemas.js';
import type { ApiError } from './console.api.js';
import {
  day,
  esc,
  field,
  formStart,
  idempotencyKeyOf,
  money,
  notice,
  pager,
  problem,
  status,
  table,
  when,
} from './console.html.js';
import { sendPage } from './console.layout.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { visitIn } from './console.visit.js';
import {
  balancesText,
  channelName,
  fieldErrorOf,
  isId,
  type List,
  phoneLinks,
  planLink,
  type ReminderSeen,
  withDelivery,
} from './customers.parts.js';

export const CUSTOMER_MESSAGES: Readonly<Record<string, string>> = {
  created: 'Customer created.',
  saved: 'Customer saved.',
  notes_saved: 'Notes saved.',
  reminder_sent: 'Reminder sent.',
  page_link_sent: 'The link to their page is on its way: see Reminders.',
};

type Query = Record<string, string | undefined>;

const cursorOf = (value: string | undefined) =>
  value && /^[A-Za-z0-9_=-]{1,512}$/.test(value) ? value : undefined;

function refused(reply: FastifyReply, visit: Visit, what: string) {
  return sendPage(
    reply,
    visit,
    {
      title: 'Not allowed',
      section: 'customers',
      body: `<p>Your role (${esc(visit.person.role)}) cannot ${esc(what)}. Ask an owner or admin.</p><p><a href="/console/customers">Back to customers</a></p>`,
    },
    403,
  );
}

function missing(reply: FastifyReply, visit: Visit) {
  return sendPage(
    reply,
    visit,
    {
      title: 'Customer not found',
      section: 'customers',
      body: '<p>There is no such customer in this workspace and mode. <a href="/console/customers">Back to customers</a>.</p>',
    },
    404,
  );
}

/** The list: search by name, phone (however written) or e-mail; each customer's balance per currency. */
async function listPage(visit: Visit, query: Query) {
  const q = (query.q ?? '').trim().slice(0, 200);
  const state = query.status === 'archived' || query.status === 'active' ? query.status : '';
  const found = await visit.api.get<List<Customer>>('/customers', {
    q: q || undefined,
    status: state || undefined,
    limit: 25,
    cursor: cursorOf(query.cursor),
  });
  const search = `<form method="get" action="/console/customers" class="filters find" role="search" aria-label="Find customers">
${field({ label: 'Name, phone or e-mail', name: 'q', type: 'search', value: q })}
${field({
  label: 'Status',
  name: 'status',
  value: state,
  options: [
    { value: '', label: 'Any' },
    { value: 'active', label: 'Active' },
    { value: 'archived', label: 'Archived' },
  ],
})}
<button type="submit">Search</button>
</form>`;
  const create = visit.can('edit_records')
    ? '<div class="actions"><a class="button" href="/console/customers/new">New customer</a></div>'
    : '';
  if (!found.ok) return `${create}${search}${problem(found.error)}`;
  const list = table(
    q ? `Customers matching “${q}”` : 'Customers, newest first',
    [
      {
        head: 'Customer',
        cell: (c: Customer) =>
          `<a href="/console/customers/${esc(c.id)}">${esc(c.name)}</a>${c.status === 'archived' ? ` ${status('archived')}` : ''}<br>${phoneLinks(
            c.phone,
            c.name,
          )}${c.email ? `<br><span class="email">${esc(c.email)}</span>` : ''}`,
      },
      { head: 'Balance', cell: (c: Customer) => balancesText(c.balances) },
    ],
    found.data.items,
    q ? 'No customer matches that.' : 'No customers yet.',
  );
  return `${create}${search}${list}${pager('/console/customers', { q, status: state }, found.data.next_cursor)}`;
}

interface CustomerFormValues {
  name?: string | undefined;
  phone?: string | undefined;
  email?: string | undefined;
  notes?: string | undefined;
}

function customerFields(values: CustomerFormValues, error: ApiError | null) {
  return [
    field({
      label: 'Name',
      name: 'name',
      value: values.name,
      required: true,
      error: fieldErrorOf(error, 'name'),
      attributes: 'maxlength="200" autocomplete="off"',
    }),
    field({
      label: 'Phone',
      name: 'phone',
      type: 'tel',
      value: values.phone,
      required: true,
      hint: 'As you have it: 0803 123 4567 or +234 803 123 4567.',
      error: fieldErrorOf(error, 'phone'),
      attributes: 'maxlength="32" autocomplete="off"',
    }),
    field({
      label: 'E-mail (optional)',
      name: 'email',
      type: 'email',
      value: values.email,
      error: fieldErrorOf(error, 'email'),
      attributes: 'maxlength="254" autocomplete="off"',
    }),
    field({
      label: 'Notes (optional)',
      name: 'notes',
      type: 'textarea',
      value: values.notes,
      error: fieldErrorOf(error, 'notes'),
      attributes: 'maxlength="2000"',
    }),
  ].join('\n');
}

function newCustomerForm(visit: Visit, values: CustomerFormValues, error: ApiError | null) {
  return `${problem(error)}${formStart(visit, '/console/customers', { label: 'New customer' })}
${customerFields(values, error)}
<div class="actions"><button type="submit">Create customer</button> <a class="button secondary" href="/console/customers">Cancel</a></div>
</form>`;
}

function editCustomerForm(
  visit: Visit,
  customer: Customer,
  values: CustomerFormValues,
  error: ApiError | null,
) {
  return `${problem(error)}${formStart(visit, `/console/customers/${customer.id}/edit`, { label: 'Edit customer' })}
${customerFields(values, error)}
<div class="actions"><button type="submit">Save customer</button> <a class="button secondary" href="/console/customers/${esc(customer.id)}">Cancel</a></div>
</form>`;
}

const trimmed = (value: string | undefined) => (value ?? '').trim();

/** A customer's mandates (up to a page of 100, newest first), read by payer. */
async function mandatesOf(visit: Visit, customerId: string) {
  const page = await visit.api.get<List<Mandate>>('/payment-mandates', { payer_id: customerId, limit: 100 });
  return page.ok ? { mandates: page.data.items, error: null } : { mandates: [], error: page.error };
}

function section(id: string, title: string, body: string) {
  return `<section aria-labelledby="${id}" class="card sheet"><h2 id="${id}">${esc(title)}</h2>${body}</section>`;
}

const LEDGER_WORDS: Record<string, string> = {
  'plan.charged': 'Plan charged',
  'plan.adjusted': 'Plan adjusted',
  'payment.recorded': 'Payment recorded',
  'payment.reversed': 'Payment reversed',
  'payment.applied': 'Payment applied',
  'obligation.created': 'Instalment set',
  'obligation.paid': 'Instalment paid',
  'collection.succeeded': 'Collection succeeded',
  'collection.failed': 'Collection failed',
  'mandate.activated': 'Mandate active',
  'mandate.replaced': 'Mandate replaced',
  'mandate.revoked': 'Mandate revoked',
};

const signed = (amount: number, currency: string) =>
  amount > 0 ? `+${money(amount, currency)}` : money(amount, currency);

/** A customer's page: who they are, what they owe, and everything about them, each read through the API. */
async function customerPage(visit: Visit, customer: Customer, query: Query, notesError: ApiError | null) {
  const id = customer.id;
  const ledgerCursor = cursorOf(query.ledger_cursor);
  const [plans, obligations, payments, reminders, ledger, mandates] = await Promise.all([
    visit.api.get<List<Track>>('/tracks', { customerId: id, limit: 50 }),
    visit.api.get<List<ObligationListItem>>('/obligations', { customer_id: id, limit: 50 }),
    visit.api.get<List<Payment>>('/payments', { customerId: id, limit: 20 }),
    visit.api.get<List<Reminder>>('/reminders', { customerId: id, limit: 10 }),
    visit.api.get<List<LedgerEntry>>(`/customers/${id}/ledger`, { limit: 20, cursor: ledgerCursor }),
    mandatesOf(visit, id),
  ]);
  const titles = new Map((plans.ok ? plans.data.items : []).map((p) => [p.id, p.title]));
  const planOf = (trackId: string | null) => (trackId ? planLink(trackId, titles.get(trackId) ?? null) : '');
  const seen: ReminderSeen[] = reminders.ok ? await withDelivery(visit, reminders.data.items) : [];

  const actions = [
    visit.can('send_reminder') && customer.status === 'active'
      ? `<a class="button" href="/console/reminders/new?customer_id=${esc(id)}">Send reminder</a>`
      : '',
    visit.can('edit_records') && customer.status === 'active'
      ? `<a class="button secondary" href="/console/customers/${esc(id)}/edit">Edit customer</a>`
      : '',
  ].join('');

  const facts = `<dl class="facts">
<dt>Phone</dt><dd>${phoneLinks(customer.phone, customer.name)}</dd>
<dt>E-mail</dt><dd>${customer.email ? `<a href="mailto:${esc(customer.email)}">${esc(customer.email)}</a>` : '<span class="note">None</span>'}</dd>
<dt>Status</dt><dd>${status(customer.status)}</dd>
${customer.optOuts.length ? `<dt>Opted out of</dt><dd>${esc(customer.optOuts.map(channelName).join(', '))}</dd>` : ''}
<dt>Customer since</dt><dd>${when(visit, customer.createdAt)}</dd>
<dt>Balance</dt><dd>${balancesText(customer.balances)}</dd>
</dl>`;

  const channels = [
    customer.phone ? { value: 'whatsapp', label: 'WhatsApp' } : null,
    customer.phone ? { value: 'sms', label: 'SMS' } : null,
    customer.email ? { value: 'email', label: 'E-mail' } : null,
  ].filter((c): c is { value: string; label: string } => c !== null);
  const pageLinkForm =
    visit.can('send_reminder') && customer.status === 'active' && channels.length > 0
      ? `${formStart(visit, `/console/customers/${id}/page-link`, { label: 'Send the link to their page' })}
<p class="note">A link to their own page, with no login, for 30 days: what they owe, their payments and receipts, their statement, and pay now.</p>
${field({ label: 'Send by', name: 'channel', options: channels, value: channels[0]?.value ?? '' })}
<div class="actions"><button type="submit">Send the link</button></div>
</form>`
      : '';

  const notesBody = visit.can('edit_notes')
    ? `${problem(notesError)}${formStart(visit, `/console/customers/${id}/notes`, { label: 'Notes' })}
${field({
  label: 'What the team should know',
  name: 'notes',
  type: 'textarea',
  value: notesError ? (query.notes ?? '') : customer.notes,
  hint: 'When they pay, who to ask for, what they promised.',
  error: fieldErrorOf(notesError, 'notes'),
  attributes: 'maxlength="2000"',
})}
<div class="actions"><button type="submit">Save notes</button></div>
</form>`
    : customer.notes
      ? `<p class="prewrap">${esc(customer.notes)}</p>`
      : '<p class="note">No notes.</p>';

  const ofWhole = (part: number, whole: number, currency: string) =>
    part === whole
      ? money(part, currency)
      : `${money(part, currency)}<br><span class="note">of ${money(whole, currency)}</span>`;

  const planTable = plans.ok
    ? table(
        'Plans',
        [
          { head: 'Plan', cell: (p: Track) => planLink(p.id, p.title) },
          {
            head: 'Left to pay',
            numeric: true,
            cell: (p: Track) => ofWhole(p.balance, p.amount, p.currency),
          },
          { head: 'Status', cell: (p: Track) => status(p.status) },
          { head: 'Due', cell: (p: Track) => day(p.dueDate) },
          {
            head: 'Actions',
            cell: (p: Track) =>
              visit.can('record_payment') && p.status === 'active'
                ? `<a class="button secondary" href="/console/payments/new?track_id=${esc(p.id)}">Record payment</a>`
                : '',
          },
        ],
        plans.data.items,
        'No plans yet.',
      )
    : problem(plans.error);

  const obligationTable = obligations.ok
    ? `${table(
        'Instalments by due date',
        [
          { head: 'Due', cell: (o: ObligationListItem) => `<span class="nowrap">${day(o.due_date)}</span>` },
          {
            head: 'Still owed',
            numeric: true,
            cell: (o: ObligationListItem) => ofWhole(o.amount_due, o.amount, o.currency),
          },
          { head: 'Status', cell: (o: ObligationListItem) => status(o.status) },
          { head: 'Plan', cell: (o: ObligationListItem) => planOf(o.track_id) },
        ],
        obligations.data.items,
        'No instalments scheduled.',
      )}${obligations.data.has_more ? '<p class="note">The first 50 are shown.</p>' : ''}`
    : problem(obligations.error);

  const dateOf = (instant: string) =>
    `<span class="nowrap">${day(localDate(instant, visit.workspace.timeZone))}</span>`;
  const paymentTable = payments.ok
    ? `${table(
        'Payments, newest first',
        [
          {
            head: 'Paid',
            cell: (p: Payment) => `<a href="/console/payments/${esc(p.id)}">${dateOf(p.paidAt)}</a>`,
          },
          { head: 'Amount', numeric: true, cell: (p: Payment) => money(p.amount, p.currency) },
          { head: 'Method', cell: (p: Payment) => esc(p.method.replaceAll('_', ' ')) },
          { head: 'Status', cell: (p: Payment) => status(p.status) },
          { head: 'Plan', cell: (p: Payment) => planOf(p.trackId) },
        ],
        payments.data.items,
        'No payments yet.',
      )}${payments.data.has_more ? `<p><a href="/console/payments?customer_id=${esc(id)}">All payments of ${esc(customer.name)}</a></p>` : ''}`
    : problem(payments.error);

  const reminderTable = reminders.ok
    ? table(
        'Reminders, newest first',
        [
          {
            head: 'When',
            cell: (r: ReminderSeen) =>
              `<span class="nowrap">${when(visit, r.reminder.sentAt ?? r.reminder.sendAt)}</span>`,
          },
          { head: 'Channel', cell: (r: ReminderSeen) => esc(channelName(r.reminder.channel)) },
          {
            head: 'Status',
            cell: (r: ReminderSeen) =>
              `${status(r.reminder.status)}${r.reminder.skipReason ? ` <span class="note">(${esc(r.reminder.skipReason.replaceAll('_', ' '))})</span>` : ''}`,
          },
          {
            head: 'Delivery',
            cell: (r: ReminderSeen) =>
              r.log
                ? `${status(r.log.status)}${r.log.error ? ` <span class="note">${esc(r.log.error)}</span>` : ''}`
                : '',
          },
          { head: 'To', cell: (r: ReminderSeen) => esc(r.reminder.to) },
        ],
        seen,
        'No reminders yet.',
      )
    : problem(reminders.error);

  const mandateTable = mandates.error
    ? problem(mandates.error)
    : table(
        'Mandates for automatic debit',
        [
          { head: 'Provider', cell: (m: Mandate) => esc(m.provider) },
          { head: 'Status', cell: (m: Mandate) => status(m.status) },
          {
            head: 'Account',
            cell: (m: Mandate) =>
              m.payment_method
                ? esc(
                    [m.payment_method.bank, m.payment_method.last4 ? `…${m.payment_method.last4}` : null]
                      .filter(Boolean)
                      .join(' '),
                  )
                : '',
          },
          { head: 'Asked', cell: (m: Mandate) => when(visit, m.created_at) },
          {
            head: 'Since',
            cell: (m: Mandate) =>
              m.status === 'pending' && m.consent_expires_at
                ? `Link expires ${when(visit, m.consent_expires_at)}`
                : when(visit, m.activated_at ?? m.revoked_at ?? m.updated_at),
          },
        ],
        mandates.mandates,
        'No mandates.',
      );

  const ledgerTable = ledger.ok
    ? `${table(
        'What changed, newest first',
        [
          { head: 'When', cell: (e: LedgerEntry) => dateOf(e.occurredAt) },
          {
            head: 'What',
            cell: (e: LedgerEntry) =>
              `${esc(LEDGER_WORDS[e.type] ?? e.type)}${e.trackId ? `<br>${planOf(e.trackId)}` : ''}`,
          },
          {
            head: 'Amount',
            numeric: true,
            cell: (e: LedgerEntry) => (e.amount === 0 ? '' : signed(e.amount, e.currency)),
          },
          {
            head: 'Balance after',
            numeric: true,
            cell: (e: LedgerEntry) => (e.balanceAfter === null ? '' : money(e.balanceAfter, e.currency)),
          },
        ],
        ledger.data.items,
        'Nothing has happened yet.',
      )}${ledger.data.next_cursor ? `<p><a class="button secondary" href="/console/customers/${esc(id)}?ledger_cursor=${esc(ledger.data.next_cursor)}#timeline">Older entries</a></p>` : ''}`
    : problem(ledger.error);

  return `${notice(query.done, CUSTOMER_MESSAGES)}
<p><a href="/console/customers">All customers</a></p>
<div class="card">${facts}${actions ? `<div class="actions">${actions}</div>` : ''}</div>
${section('notes', 'Notes', notesBody)}
${section('plans', 'Plans', planTable)}
${section('obligations', 'Instalments', obligationTable)}
${section('payments', 'Payments', paymentTable)}
${section('reminders', 'Reminders', `${reminderTable}${pageLinkForm}`)}
${section('mandates', 'Mandates', mandateTable)}
${section('timeline', 'Timeline', ledgerTable)}`;
}

type WithId = { Params: { id: string } };

export function customersPages(app: FastifyInstance, _ctx: AppContext) {
  app.get<{ Querystring: Query }>('/customers', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    const query = request.query ?? {};
    return sendPage(reply, visit, {
      title: 'Customers',
      section: 'customers',
      body: `${notice(query.done, CUSTOMER_MESSAGES)}${await listPage(visit, query)}`,
    });
  });

  app.get('/customers/new', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('edit_records')) return refused(reply, visit, 'add customers');
    return sendPage(reply, visit, {
      title: 'New customer',
      section: 'customers',
      body: newCustomerForm(visit, {}, null),
    });
  });

  app.post<{ Body: ConsoleForm }>('/customers', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('edit_records')) return refused(reply, visit, 'add customers');
    const form = request.body ?? {};
    const values = {
      name: trimmed(form.name),
      phone: trimmed(form.phone),
      email: trimmed(form.email),
      notes: trimmed(form.notes),
    };
    const created = await visit.api.send<Customer>(
      'POST',
      '/customers',
      {
        name: values.name,
        phone: values.phone,
        ...(values.email ? { email: values.email } : {}),
        ...(values.notes ? { notes: values.notes } : {}),
      },
      idempotencyKeyOf(form),
    );
    if (!created.ok)
      return sendPage(
        reply,
        visit,
        { title: 'New customer', section: 'customers', body: newCustomerForm(visit, values, created.error) },
        created.status,
      );
    return reply.code(303).header('location', `/console/customers/${created.data.id}?done=created`).send();
  });

  app.get<WithId & { Querystring: Query }>(
    '/customers/:id',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!isId(request.params.id, 'cus')) return missing(reply, visit);
      const found = await visit.api.get<Customer>(`/customers/${request.params.id}`);
      if (!found.ok) return missing(reply, visit);
      return sendPage(reply, visit, {
        title: found.data.name,
        section: 'customers',
        body: await customerPage(visit, found.data, request.query ?? {}, null),
      });
    },
  );

  app.post<WithId & { Body: ConsoleForm }>(
    '/customers/:id/notes',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('edit_notes')) return refused(reply, visit, "change a customer's notes");
      if (!isId(request.params.id, 'cus')) return missing(reply, visit);
      const notes = trimmed(request.body?.notes);
      const saved = await visit.api.send<Customer>('PATCH', `/customers/${request.params.id}`, {
        notes: notes || null,
      });
      if (saved.ok)
        return reply
          .code(303)
          .header('location', `/console/customers/${saved.data.id}?done=notes_saved`)
          .send();
      const found = await visit.api.get<Customer>(`/customers/${request.params.id}`);
      if (!found.ok) return missing(reply, visit);
      return sendPage(
        reply,
        visit,
        {
          title: found.data.name,
          section: 'customers',
          body: await customerPage(visit, found.data, { notes }, saved.error),
        },
        saved.status,
      );
    },
  );

  app.post<WithId & { Body: ConsoleForm }>(
    '/customers/:id/page-link',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('send_reminder')) return refused(reply, visit, 'send reminders');
      if (!isId(request.params.id, 'cus')) return missing(reply, visit);
      const sent = await visit.api.send('POST', `/customers/${request.params.id}/portal-links`, {
        send: trimmed(request.body?.channel),
      });
      if (sent.ok) {
        return reply
          .code(303)
          .header('location', `/console/customers/${request.params.id}?done=page_link_sent#reminders`)
          .send();
      }
      const found = await visit.api.get<Customer>(`/customers/${request.params.id}`);
      if (!found.ok) return missing(reply, visit);
      return sendPage(
        reply,
        visit,
        {
          title: found.data.name,
          section: 'customers',
          body: await customerPage(visit, found.data, {}, sent.error),
        },
        sent.status,
      );
    },
  );

  app.get<WithId>('/customers/:id/edit', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('edit_records')) return refused(reply, visit, 'edit customers');
    if (!isId(request.params.id, 'cus')) return missing(reply, visit);
    const found = await visit.api.get<Customer>(`/customers/${request.params.id}`);
    if (!found.ok) return missing(reply, visit);
    const c = found.data;
    return sendPage(reply, visit, {
      title: `Edit ${c.name}`,
      section: 'customers',
      body: editCustomerForm(
        visit,
        c,
        { name: c.name, phone: c.phone, email: c.email ?? '', notes: c.notes ?? '' },
        null,
      ),
    });
  });

  app.post<WithId & { Body: ConsoleForm }>(
    '/customers/:id/edit',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('edit_records')) return refused(reply, visit, 'edit customers');
      if (!isId(request.params.id, 'cus')) return missing(reply, visit);
      const found = await visit.api.get<Customer>(`/customers/${request.params.id}`);
      if (!found.ok) return missing(reply, visit);
      const form = request.body ?? {};
      const values = {
        name: trimmed(form.name),
        phone: trimmed(form.phone),
        email: trimmed(form.email),
        notes: trimmed(form.notes),
      };
      const saved = await visit.api.send<Customer>('PATCH', `/customers/${found.data.id}`, {
        name: values.name,
        ...(values.phone === found.data.phone ? {} : { phone: values.phone }),
        email: values.email || null,
        notes: values.notes || null,
      });
      if (!saved.ok)
        return sendPage(
          reply,
          visit,
          {
            title: `Edit ${found.data.name}`,
            section: 'customers',
            body: editCustomerForm(visit, found.data, values, saved.error),
          },
          saved.status,
        );
      return reply.code(303).header('location', `/console/customers/${saved.data.id}?done=saved`).send();
    },
  );
}
