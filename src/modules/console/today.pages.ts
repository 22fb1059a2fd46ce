import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { daysBetween, localDate } from '../../lib/calendar.js';
import type { Attempt } from '../attempts/attempts.schemas.js';
import type { Customer } from '../customers/customers.schemas.js';
import type { Mandate } from '../mandates/mandates.schemas.js';
import type { Overdue } from '../reports/reports.schemas.js';
import type { Schedule } from '../schedules/schedules.schemas.js';
import type { Track } from '../tracks/tracks.schemas.js';
import { esc, money, notice, problem, status, table, when } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { Visit } from './console.visit.js';
import { visitIn } from './console.visit.js';
import {
  customerLink,
  isId,
  type List,
  lastReminder,
  phoneLinks,
  planLink,
  type ReminderSeen,
  reminderSummary,
} from './customers.parts.js';

type OverdueAccount = Overdue['accounts']['items'][number];
type Row = OverdueAccount & { days: number };

/** Overdue accounts read from the report at most (then the list says it stops there). */
const MOST_ACCOUNTS = 1000;
/** Overdue accounts shown on one page. */
const PER_PAGE = 25;

export const TODAY_MESSAGES: Readonly<Record<string, string>> = {
  reminder_sent: 'Reminder sent.',
};

/**
 * Every overdue account of the report, worst first as the people collecting read it: most days overdue (counted
 * from the oldest unpaid due date to today in the workspace's zone), then the largest amount.
 */
async function overdueAccounts(visit: Visit) {
  const today = localDate(visit.now, visit.workspace.timeZone);
  const rows: Row[] = [];
  let cursor: string | undefined;
  let complete = true;
  do {
    const page = await visit.api.get<Overdue>('/reports/overdue', { limit: 100, cursor });
    if (!page.ok) return { rows, complete: false, error: page.error };
    for (const account of page.data.accounts.items)
      rows.push({ ...account, days: Math.max(1, daysBetween(account.oldestDueDate, today)) });
    cursor = page.data.accounts.next_cursor ?? undefined;
    if (cursor && rows.length >= MOST_ACCOUNTS) {
      complete = false;
      break;
    }
  } while (cursor);
  rows.sort(
    (a, b) =>
      b.days - a.days ||
      a.currency.localeCompare(b.currency) ||
      b.overdueAmount - a.overdueAmount ||
      (a.customerName ?? '').localeCompare(b.customerName ?? ''),
  );
  return { rows, complete, error: null };
}

/** Looks records up once per page: the plan of a schedule, the customer of a plan. */
function lookups(visit: Visit) {
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(path: string) => {
    let found = memo.get(path) as Promise<T | null> | undefined;
    if (!found) {
      found = visit.api.get<T>(path).then((answer) => (answer.ok ? answer.data : null));
      memo.set(path, found);
    }
    return found;
  };
  return {
    customer: (id: string | null | undefined) =>
      isId(id, 'cus') ? once<Customer>(`/customers/${id}`) : Promise.resolve(null),
    plan: (id: string | null | undefined) =>
      isId(id, 'trk') ? once<Track>(`/tracks/${id}`) : Promise.resolve(null),
    schedule: (id: string | null | undefined) =>
      isId(id, 'sch') ? once<Schedule>(`/collection-schedules/${id}`) : Promise.resolve(null),
  };
}

function actionsFor(visit: Visit, row: { trackId: string | null; customerId: string | null }) {
  if (!row.trackId) return '';
  const links = [];
  if (visit.can('send_reminder'))
    links.push(
      `<a class="button secondary" href="/console/reminders/new?track_id=${esc(row.trackId)}&amp;back=/console/today">Send reminder</a>`,
    );
  if (visit.can('record_payment'))
    links.push(
      `<a class="button secondary" href="/console/payments/new?track_id=${esc(row.trackId)}">Record payment</a>`,
    );
  return links.length ? `<div class="actions">${links.join('')}</div>` : '';
}

function moreLink(label: string, name: string, value: string | null, keep: Record<string, string>) {
  if (!value) return '';
  const search = new URLSearchParams({ ...keep, [name]: value });
  return `<p><a class="button secondary" href="/console/today?${esc(search.toString())}">${esc(label)}</a></p>`;
}

async function overdueSection(visit: Visit, page: number) {
  const { rows, complete, error } = await overdueAccounts(visit);
  const shown = rows.slice((page - 1) * PER_PAGE, page * PER_PAGE);
  const reminders = new Map<string, ReminderSeen | null>(
    await Promise.all(
      shown
        .filter((r) => r.trackId)
        .map(
          async (r) =>
            [r.trackId as string, await lastReminder(visit, { trackId: r.trackId as string })] as const,
        ),
    ),
  );
  const list = table(
    'Overdue, most days first',
    [
      {
        head: 'Customer',
        cell: (r: Row) =>
          `${customerLink(r.customerId, r.customerName)}${r.phone ? `<br>${phoneLinks(r.phone, r.customerName ?? '')}` : ''}`,
      },
      { head: 'Plan', cell: (r: Row) => planLink(r.trackId, r.planTitle) },
      { head: 'Overdue', numeric: true, cell: (r: Row) => money(r.overdueAmount, r.currency) },
      {
        head: 'Days overdue',
        numeric: true,
        cell: (r: Row) => `${r.days}<span class="visually-hidden"> days</span>`,
      },
      {
        head: 'Last reminder',
        cell: (r: Row) => (r.trackId ? reminderSummary(visit, reminders.get(r.trackId) ?? null) : ''),
      },
      { head: 'Actions', cell: (r: Row) => actionsFor(visit, r) },
    ],
    shown,
    page > 1 ? 'No more overdue accounts.' : 'Nothing is overdue. Well done.',
  );
  const total = rows.length;
  const counts =
    total > 0
      ? `<p class="note">${total} overdue ${total === 1 ? 'account' : 'accounts'}${complete ? '' : ' (the first 1,000 read)'}; showing ${
          (page - 1) * PER_PAGE + 1
        } to ${Math.min(page * PER_PAGE, total)}.</p>`
      : '';
  const nav = [
    page > 1 ? `<a class="button secondary" href="/console/today?page=${page - 1}">Previous page</a>` : '',
    page * PER_PAGE < total
      ? `<a class="button secondary" href="/console/today?page=${page + 1}">Next page</a>`
      : '',
  ].join('');
  return `<section aria-labelledby="overdue"><h2 id="overdue">Overdue</h2>${problem(error)}${counts}${list}${
    nav ? `<div class="actions">${nav}</div>` : ''
  }</section>`;
}

interface AttemptRow {
  attempt: Attempt;
  plan: Track | null;
  customer: Customer | null;
}

async function failedSection(visit: Visit, cursor: string | undefined, keep: Record<string, string>) {
  const found = await visit.api.get<List<Attempt>>('/collection-attempts', {
    status: 'failed',
    limit: 20,
    cursor,
  });
  if (!found.ok)
    return `<section aria-labelledby="failed"><h2 id="failed">Failed collections</h2>${problem(found.error)}</section>`;
  const look = lookups(visit);
  const rows: AttemptRow[] = await Promise.all(
    found.data.items.map(async (attempt) => {
      const schedule = await look.schedule(attempt.schedule_id);
      const plan = await look.plan(schedule?.target_id);
      const customer = await look.customer(plan?.customerId);
      return { attempt, plan, customer };
    }),
  );
  const next = (a: Attempt) =>
    a.next_retry_at
      ? `Retries ${when(visit, a.next_retry_at)}`
      : a.no_retry_reason
        ? `No retry: ${esc(a.no_retry_reason.replaceAll('_', ' '))}`
        : '';
  const list = table(
    'Collection attempts that failed, newest first',
    [
      {
        head: 'Customer',
        cell: (r: AttemptRow) =>
          r.customer
            ? `${customerLink(r.customer.id, r.customer.name)}<br>${phoneLinks(r.customer.phone, r.customer.name)}`
            : '',
      },
      { head: 'Plan', cell: (r: AttemptRow) => (r.plan ? planLink(r.plan.id, r.plan.title) : '') },
      { head: 'Amount', numeric: true, cell: (r: AttemptRow) => money(r.attempt.amount, r.attempt.currency) },
      {
        head: 'Tried',
        cell: (r: AttemptRow) =>
          `${when(visit, r.attempt.attempted_at ?? r.attempt.scheduled_for)} <span class="note">(try ${r.attempt.attempt_number} of 4)</span>`,
      },
      {
        head: 'Reason',
        cell: (r: AttemptRow) =>
          `${status(r.attempt.failure_code ?? 'failed')}${r.attempt.failure_message ? `<br>${esc(r.attempt.failure_message)}` : ''}`,
      },
      { head: 'Next retry', cell: (r: AttemptRow) => next(r.attempt) },
    ],
    rows,
    'No collection attempt has failed.',
  );
  return `<section aria-labelledby="failed"><h2 id="failed">Failed collections</h2>${list}${moreLink(
    'More failed collections',
    'attempts_cursor',
    found.data.next_cursor,
    keep,
  )}</section>`;
}

interface MandateRow {
  mandate: Mandate;
  customer: Customer | null;
  plan: Track | null;
}

async function waitingSection(visit: Visit, cursor: string | undefined, keep: Record<string, string>) {
  const found = await visit.api.get<List<Mandate>>('/payment-mandates', {
    status: 'pending',
    limit: 20,
    cursor,
  });
  if (!found.ok)
    return `<section aria-labelledby="waiting"><h2 id="waiting">Mandates waiting for the payer</h2>${problem(found.error)}</section>`;
  const look = lookups(visit);
  const rows: MandateRow[] = await Promise.all(
    found.data.items.map(async (mandate) => {
      const [customer, schedule] = await Promise.all([
        look.customer(mandate.payer_id),
        look.schedule(mandate.schedule_id),
      ]);
      return { mandate, customer, plan: await look.plan(schedule?.target_id) };
    }),
  );
  const list = table(
    'Mandates the payer has not yet approved',
    [
      {
        head: 'Customer',
        cell: (r: MandateRow) =>
          r.customer
            ? `${customerLink(r.customer.id, r.customer.name)}<br>${phoneLinks(r.customer.phone, r.customer.name)}`
            : esc(r.mandate.payer_id),
      },
      { head: 'Plan', cell: (r: MandateRow) => (r.plan ? planLink(r.plan.id, r.plan.title) : '') },
      { head: 'Provider', cell: (r: MandateRow) => esc(r.mandate.provider) },
      { head: 'Asked', cell: (r: MandateRow) => when(visit, r.mandate.created_at) },
      {
        head: 'Consent',
        cell: (r: MandateRow) =>
          r.mandate.consented_at
            ? `Given ${when(visit, r.mandate.consented_at)}; waiting for the provider`
            : r.mandate.consent_expires_at
              ? `Link expires ${when(visit, r.mandate.consent_expires_at)}`
              : '',
      },
    ],
    rows,
    'No mandate is waiting for its payer.',
  );
  return `<section aria-labelledby="waiting"><h2 id="waiting">Mandates waiting for the payer</h2>${list}${moreLink(
    'More mandates',
    'mandates_cursor',
    found.data.next_cursor,
    keep,
  )}</section>`;
}

const cursorOf = (value: string | undefined) =>
  value && /^[A-Za-z0-9_=-]{1,512}$/.test(value) ? value : undefined;

/** Today's work: who is overdue (worst first), collections that failed, and mandates the payer has not answered. */
export function todayPages(app: FastifyInstance, _ctx: AppContext) {
  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/today',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const query = request.query ?? {};
      const page = /^[1-9]\d{0,4}$/.test(query.page ?? '') ? Number(query.page) : 1;
      const attemptsCursor = cursorOf(query.attempts_cursor);
      const mandatesCursor = cursorOf(query.mandates_cursor);
      const [overdue, failed, waiting] = await Promise.all([
        overdueSection(visit, page),
        failedSection(visit, attemptsCursor, mandatesCursor ? { mandates_cursor: mandatesCursor } : {}),
        waitingSection(visit, mandatesCursor, attemptsCursor ? { attempts_cursor: attemptsCursor } : {}),
      ]);
      return sendPage(reply, visit, {
        title: "Today's work",
        section: 'today',
        body: `${notice(query.done, TODAY_MESSAGES)}<p class="note">As of ${when(visit, visit.now.toISOString())}.</p>${overdue}${failed}${waiting}`,
      });
    },
  );
}
