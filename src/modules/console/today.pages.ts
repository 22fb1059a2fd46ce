import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { addDays, localDate } from '../../lib/calendar.js';
import type { Attempt } from '../attempts/attempts.schemas.js';
import type { Customer } from '../customers/customers.schemas.js';
import type { Mandate } from '../mandates/mandates.schemas.js';
import type { Overdue } from '../reports/reports.schemas.js';
import type { ObligationListItem, Schedule } from '../schedules/schedules.schemas.js';
import type { Track } from '../tracks/tracks.schemas.js';
import { esc, money, notice, problem, status, when } from './console.html.js';
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

/** The states of an obligation still owed. */
const OPEN = ['overdue', 'pending', 'partially_paid'] as const;

type OverdueAccount = Overdue['accounts']['items'][number];

/** Overdue accounts shown on one page. */
const PER_PAGE = 25;

export const TODAY_MESSAGES: Readonly<Record<string, string>> = {
  reminder_sent: 'Reminder sent.',
};

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

function actionsFor(visit: Visit, row: { trackId: string | null }) {
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

/** What of an account's overdue amount a promise to pay or a dispute holds back, in words; nothing when neither. */
function heldBack(r: OverdueAccount) {
  const parts = [
    r.promised > 0 ? `<strong>${money(r.promised, r.currency)}</strong> promised` : '',
    r.disputed > 0 ? `<strong>${money(r.disputed, r.currency)}</strong> disputed` : '',
  ].filter(Boolean);
  return parts.length ? `<p class="held">${parts.join(', ')}: reminders and debits wait.</p>` : '';
}

/**
 * One overdue account as a card a collector reads on a phone: who, how much and how late, the number to call or
 * message, the last reminder and what became of it, and what to do next.
 */
function overdueItem(visit: Visit, r: OverdueAccount, reminder: ReminderSeen | null) {
  const about = r.trackId
    ? `<p class="about">${planLink(r.trackId, r.planTitle)}</p>`
    : '<p class="about note">A collection without a plan</p>';
  return `<li class="card work">
<h3>${customerLink(r.customerId, r.customerName)}</h3>
<p class="owed"><strong class="amount">${money(r.overdueAmount, r.currency)}</strong> overdue, <strong class="days">${r.daysOverdue} ${
    r.daysOverdue === 1 ? 'day' : 'days'
  }</strong></p>
${heldBack(r)}
${about}
${r.phone ? `<p>${phoneLinks(r.phone, r.customerName ?? '')}</p>` : ''}
${r.trackId ? `<p class="last">Last reminder: ${reminderSummary(visit, reminder)}</p>` : ''}
${actionsFor(visit, r)}
</li>`;
}

/**
 * A page of the overdue accounts, worst first as the people collecting read it (the most days overdue, then the
 * largest amount), each with its last reminder.
 */
async function overdueSection(visit: Visit, cursor: string | undefined, keep: Record<string, string>) {
  const found = await visit.api.get<Overdue>('/reports/overdue', {
    order: 'days_overdue',
    limit: PER_PAGE,
    cursor,
  });
  if (!found.ok)
    return `<section aria-labelledby="overdue"><h2 id="overdue">Overdue</h2>${problem(found.error)}</section>`;
  const shown = found.data.accounts.items;
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
  const totals = found.data.currencies
    .filter((c) => c.total > 0)
    .map((c) => `<strong>${money(c.total, c.currency)}</strong>`);
  const summary = totals.length ? `<p class="note">${totals.join(', ')} overdue in all.</p>` : '';
  const list =
    shown.length === 0
      ? `<p class="note">${cursor ? 'No more overdue accounts.' : 'Nothing is overdue. Well done.'}</p>`
      : `<ol class="worklist" aria-label="Overdue, worst first">${shown
          .map((r) => overdueItem(visit, r, r.trackId ? (reminders.get(r.trackId) ?? null) : null))
          .join('\n')}</ol>`;
  const first = cursor
    ? `<p><a class="button secondary" href="/console/today${
        Object.keys(keep).length ? `?${esc(new URLSearchParams(keep).toString())}` : ''
      }">First overdue accounts</a></p>`
    : '';
  return `<section aria-labelledby="overdue"><h2 id="overdue">Overdue</h2>
<p class="note">Worst first: the most days overdue, then the largest amount.</p>${summary}${list}${moreLink(
    'More overdue accounts',
    'overdue_cursor',
    found.data.accounts.next_cursor,
    keep,
  )}${first}</section>`;
}

/** A list of things to do, each a card a collector reads on a phone. */
function workList(label: string, items: readonly string[], empty: string) {
  return items.length === 0
    ? `<p class="note">${esc(empty)}</p>`
    : `<ol class="worklist" aria-label="${esc(label)}">${items.join('\n')}</ol>`;
}

/** One thing to do: whose it is (their page, their phone), the plan, what happened, and what can be done. */
function workItem(item: {
  customer: Customer | null;
  plan: Track | null;
  headline: string;
  lines: readonly string[];
  actions: string;
}) {
  const { customer, plan } = item;
  return `<li class="card work">
<h3>${customer ? customerLink(customer.id, customer.name) : plan ? planLink(plan.id, plan.title) : 'Without a customer'}</h3>
<p class="owed">${item.headline}</p>
${plan ? `<p class="about">${planLink(plan.id, plan.title)}</p>` : ''}
${customer ? `<p>${phoneLinks(customer.phone, customer.name)}</p>` : ''}
${item.lines
  .filter(Boolean)
  .map((line) => `<p>${line}</p>`)
  .join('\n')}
${item.actions}
</li>`;
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
  // A failure is work to do while it is its obligation's latest outcome and the obligation is still owed: not
  // once a later try failed too (that one shows), succeeded or is under way, nor once the obligation was paid some
  // other way or cancelled (its waiting retry is cancelled only when it falls due).
  const failures = new Map<string, Promise<string | undefined>>();
  const currentFailureOf = (obligationId: string) => {
    let found = failures.get(obligationId);
    if (!found) {
      found = visit.api
        .get<List<Attempt>>('/collection-attempts', { obligation_id: obligationId, limit: 10 })
        .then((answer) => {
          if (!answer.ok) return undefined;
          const [newest] = answer.data.items;
          if (!newest || ['succeeded', 'processing', 'cancelled'].includes(newest.status)) return undefined;
          return answer.data.items.find((a) => a.status === 'failed')?.id;
        });
      failures.set(obligationId, found);
    }
    return found;
  };
  const dueBy = addDays(localDate(visit.now, visit.workspace.timeZone), 1);
  const owed = new Map<string, Promise<Set<string>>>();
  const owedOf = (scheduleId: string) => {
    let found = owed.get(scheduleId);
    if (!found) {
      found = Promise.all(
        OPEN.map((state) =>
          visit.api.get<List<ObligationListItem>>('/obligations', {
            schedule_id: scheduleId,
            status: state,
            due_to: dueBy,
            limit: 100,
          }),
        ),
      ).then(
        (answers) =>
          new Set(answers.flatMap((answer) => (answer.ok ? answer.data.items.map((o) => o.id) : []))),
      );
      owed.set(scheduleId, found);
    }
    return found;
  };
  const current = (
    await Promise.all(
      found.data.items.map(async (attempt) => {
        const [latest, open] = await Promise.all([
          currentFailureOf(attempt.obligation_id),
          owedOf(attempt.schedule_id),
        ]);
        return latest === attempt.id && open.has(attempt.obligation_id) ? attempt : null;
      }),
    )
  ).filter((attempt): attempt is Attempt => attempt !== null);
  const rows: AttemptRow[] = await Promise.all(
    current.map(async (attempt) => {
      const schedule = await look.schedule(attempt.schedule_id);
      const plan = await look.plan(schedule?.target_id);
      const customer = await look.customer(plan?.customerId);
      return { attempt, plan, customer };
    }),
  );
  const next = (a: Attempt) =>
    a.next_retry_at
      ? `Next try ${when(visit, a.next_retry_at)}.`
      : a.no_retry_reason
        ? `No more tries: ${esc(a.no_retry_reason.replaceAll('_', ' '))}.`
        : '';
  const list = workList(
    'Collections that failed, newest first',
    rows.map((r) =>
      workItem({
        customer: r.customer,
        plan: r.plan,
        headline: `<strong class="amount">${money(r.attempt.amount, r.attempt.currency)}</strong> not collected: ${status(
          r.attempt.failure_code ?? 'failed',
        )}`,
        lines: [
          r.attempt.failure_message ? esc(r.attempt.failure_message) : '',
          `Tried ${when(visit, r.attempt.attempted_at ?? r.attempt.scheduled_for)}, try ${r.attempt.attempt_number} of 4. ${next(r.attempt)}`,
        ],
        actions: actionsFor(visit, { trackId: r.plan?.id ?? null }),
      }),
    ),
    'No failed collection needs attention.',
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
  const list = workList(
    'Mandates the payer has not yet approved',
    rows.map((r) =>
      workItem({
        customer: r.customer,
        plan: r.plan,
        headline: r.mandate.consented_at
          ? `Consent given ${when(visit, r.mandate.consented_at)}; waiting for ${esc(r.mandate.provider)}`
          : `Waiting for consent through ${esc(r.mandate.provider)}`,
        lines: [
          `Asked ${when(visit, r.mandate.created_at)}${
            r.mandate.consent_expires_at && !r.mandate.consented_at
              ? `; the link expires ${when(visit, r.mandate.consent_expires_at)}`
              : ''
          }.`,
        ],
        actions: '',
      }),
    ),
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
      const cursors = {
        overdue_cursor: cursorOf(query.overdue_cursor),
        attempts_cursor: cursorOf(query.attempts_cursor),
        mandates_cursor: cursorOf(query.mandates_cursor),
      };
      /** The other sections' cursors, kept by a link that moves one section. */
      const keepAllBut = (name: keyof typeof cursors) =>
        Object.fromEntries(
          Object.entries(cursors).filter((e): e is [string, string] => e[0] !== name && e[1] !== undefined),
        );
      const [overdue, failed, waiting] = await Promise.all([
        overdueSection(visit, cursors.overdue_cursor, keepAllBut('overdue_cursor')),
        failedSection(visit, cursors.attempts_cursor, keepAllBut('attempts_cursor')),
        waitingSection(visit, cursors.mandates_cursor, keepAllBut('mandates_cursor')),
      ]);
      return sendPage(reply, visit, {
        title: "Today's work",
        section: 'today',
        body: `${notice(query.done, TODAY_MESSAGES)}<p class="note">As of ${when(visit, visit.now.toISOString())}.</p>${overdue}${failed}${waiting}`,
      });
    },
  );
}
