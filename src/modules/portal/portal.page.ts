import { contactHtml, escapeHtml, page } from '../../http/html-page.js';
import { localDate } from '../../lib/calendar.js';
import { shortDayInWords } from '../../lib/in-words.js';
import { formatMoney } from '../../lib/money.js';
import type { BusinessCard } from '../workspaces/workspaces.service.js';

/** The customer's page, phone first and without script: what is owed, what was paid, and what they can do. */

export interface PortalPlan {
  id: string;
  title: string;
  amount: number;
  amountPaid: number;
  balance: number;
  currency: string;
  status: string;
}

export interface PortalObligation {
  id: string;
  /** `instalment`, or `fee`: a late fee charged on the instalment it follows. */
  kind: string;
  schedule_id: string;
  track_id: string | null;
  due_date: string;
  amount: number;
  amount_paid: number;
  currency: string;
  status: string;
}

export interface PortalPayment {
  id: string;
  trackId: string | null;
  amount: number;
  currency: string;
  status: string;
  paidAt: string;
  refund: { status: string } | null;
  receipt: { number: string; code: string; url: string } | null;
}

export interface PortalPromise {
  id: string;
  trackId: string;
  amount: number;
  currency: string;
  date: string;
  status: string;
}

export interface PortalMandate {
  id: string;
  status: string;
  provider: string;
  schedule_id: string | null;
  activated_at: string | null;
}

export interface PortalView {
  token: string;
  business: BusinessCard;
  customerName: string;
  /** Today in the business's zone. */
  today: string;
  test: boolean;
  plans: PortalPlan[];
  obligations: PortalObligation[];
  payments: PortalPayment[];
  mandates: PortalMandate[];
  /** The customer's open promises to pay. */
  promises: PortalPromise[];
  notice: string | null;
  /** Why what they just asked was refused (a promise to pay), in words. */
  problem?: string | null;
  /** The promise to pay that was refused, as typed: its form is shown open again with it. */
  refusedPromise?: { plan: string; amount: string; date: string } | null;
}

const esc = escapeHtml;
const money = (amount: number, currency: string) => esc(formatMoney(amount, currency));
const day = (date: string) => esc(shortDayInWords(date));

const OBLIGATION_WORDS: Record<string, string> = {
  paid: 'Paid',
  overdue: 'Overdue',
  partially_paid: 'Part paid',
  pending: 'Upcoming',
  cancelled: 'Cancelled',
  written_off: 'Written off',
  waived: 'Waived',
};

function obligationWords(o: PortalObligation, today: string): string {
  if (o.status === 'pending' && o.due_date <= today) return 'Due';
  return OBLIGATION_WORDS[o.status] ?? o.status.replaceAll('_', ' ');
}

/** What is still asked of a part paid obligation, or what of it the business gave up, on a line of its own. */
function obligationLeft(o: PortalObligation): string {
  const left = o.amount - o.amount_paid;
  const note = (words: string) => `<br><span class="note">${words}</span>`;
  if (o.status === 'partially_paid' || (o.status === 'overdue' && o.amount_paid > 0))
    return note(`${money(left, o.currency)} left`);
  if ((o.status === 'written_off' || o.status === 'waived') && o.amount_paid > 0)
    return note(`${money(left, o.currency)} of it`);
  return '';
}

/** A plan no longer open, in words: paid in full, or closed with part of it written off. */
function closedPlanWords(view: PortalView, plan: PortalPlan, obligations: PortalObligation[]): string {
  if (plan.status !== 'completed') return '';
  if (obligations.some((o) => o.status === 'written_off'))
    return `<p><strong>Nothing left to pay.</strong> ${esc(view.business.name)} wrote off part of this plan.</p>`;
  return '<p><strong>Paid in full.</strong> Thank you.</p>';
}

/** The page's shell: the business on the masthead, in its colour. */
export function portalPage(business: BusinessCard, title: string, body: string): string {
  return page(title, body, { masthead: business.name, brandColor: business.brandColor });
}

function planSection(view: PortalView, plan: PortalPlan): string {
  const mine = view.obligations
    .filter((o) => o.track_id === plan.id && o.status !== 'cancelled')
    .sort((a, b) => (a.due_date < b.due_date ? -1 : a.due_date > b.due_date ? 1 : 0));
  const rows = mine
    .map((o) => {
      const what = o.kind === 'fee' ? '<br><span class="note">Late fee</span>' : '';
      return `<tr><td class="nowrap">${day(o.due_date)}${what}</td><td class="amount">${money(o.amount, o.currency)}</td><td>${esc(obligationWords(o, view.today))}${obligationLeft(o)}</td></tr>`;
    })
    .join('');
  const listed = mine.some((o) => o.kind === 'fee') ? 'Instalments and late fees' : 'Instalments';
  const schedule = rows
    ? `<table><caption>${listed} of ${esc(plan.title)}</caption><thead><tr><th scope="col">Due</th><th scope="col" class="amount">Amount</th><th scope="col">Status</th></tr></thead><tbody>${rows}</tbody></table>`
    : '';
  const pay =
    plan.status === 'active' && plan.balance > 0
      ? `<form method="post" action="/c/${esc(view.token)}/pay"><input type="hidden" name="plan" value="${esc(plan.id)}"><div class="actions"><button class="approve" type="submit">Pay now</button></div></form>`
      : '';
  const state = closedPlanWords(view, plan, mine);
  const promise = plan.status === 'active' && plan.balance > 0 ? promiseHtml(view, plan) : '';
  return `<section aria-labelledby="plan-${esc(plan.id)}">
<h2 id="plan-${esc(plan.id)}">${esc(plan.title)}</h2>
${state}<dl><dt>Total</dt><dd>${money(plan.amount, plan.currency)}</dd><dt>Paid</dt><dd>${money(plan.amountPaid, plan.currency)}</dd><dt>Left to pay</dt><dd><strong>${money(plan.balance, plan.currency)}</strong></dd></dl>
${schedule}${pay}${promise}
</section>`;
}

/** The open promise to pay on a plan, or the small form that makes one. */
function promiseHtml(view: PortalView, plan: PortalPlan): string {
  const open = view.promises.find((p) => p.trackId === plan.id && p.status === 'open');
  if (open)
    return `<p class="promise" role="status">You promised to pay <strong>${money(open.amount, open.currency)}</strong> by ${day(open.date)}. Thank you: we will not chase you before then.</p>`;
  const id = (name: string) => `promise-${esc(plan.id)}-${name}`;
  const refused = view.refusedPromise?.plan === plan.id ? view.refusedPromise : null;
  const amount = refused ? ` value="${esc(refused.amount)}"` : '';
  const date = refused?.date || view.today;
  return `<details${refused ? ' open' : ''}><summary>Promise to pay</summary>
<p class="note">Cannot pay now? Tell ${esc(view.business.name)} how much you will pay, and by when.</p>
<form method="post" action="/c/${esc(view.token)}/promise" class="stack"><input type="hidden" name="plan" value="${esc(plan.id)}">
<div><label for="${id('amount')}">Amount (${esc(plan.currency)})</label><input id="${id('amount')}" name="amount" inputmode="decimal"${amount} required></div>
<div><label for="${id('date')}">Pay by</label><input id="${id('date')}" name="date" type="date" min="${esc(view.today)}" value="${esc(date)}" required></div>
<div class="actions"><button class="decline" type="submit">Promise to pay</button></div>
</form></details>`;
}

function paymentsSection(view: PortalView): string {
  if (view.payments.length === 0) return '<h2 id="payments">Payments</h2><p>No payments yet.</p>';
  const titles = new Map(view.plans.map((p) => [p.id, p.title]));
  const rows = view.payments
    .map((p) => {
      const receipt = p.receipt
        ? `<a href="/r/${esc(p.receipt.code.replaceAll('-', ''))}">${esc(p.receipt.number)}</a>`
        : '';
      const state =
        p.status === 'reversed' ? (p.refund?.status === 'succeeded' ? ' (refunded)' : ' (reversed)') : '';
      const what = p.trackId ? (titles.get(p.trackId) ?? '') : 'Credit';
      return `<tr><td>${day(localDate(p.paidAt, view.business.timeZone))}<br><span class="note">${esc(what)}</span></td><td class="amount">${money(p.amount, p.currency)}${state ? `<br><span class="note">${esc(state.trim())}</span>` : ''}</td><td class="nowrap">${receipt}</td></tr>`;
    })
    .join('');
  return `<h2 id="payments">Payments</h2><table><caption>Your latest payments, with their receipts</caption><thead><tr><th scope="col">Date</th><th scope="col" class="amount">Amount</th><th scope="col">Receipt</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function mandatesSection(view: PortalView): string {
  const standing = view.mandates.filter((m) => m.status === 'active' || m.status === 'pending');
  if (standing.length === 0) return '';
  const planOfSchedule = new Map(view.obligations.map((o) => [o.schedule_id, o.track_id]));
  const titles = new Map(view.plans.map((p) => [p.id, p.title]));
  const items = standing
    .map((m) => {
      const planId = m.schedule_id ? planOfSchedule.get(m.schedule_id) : undefined;
      const what = planId ? titles.get(planId) : undefined;
      const since = m.activated_at
        ? `, since ${day(localDate(m.activated_at, view.business.timeZone))}`
        : ' (waiting for approval)';
      return `<li>${what ? `${esc(what)}: automatic payments` : 'Automatic payments'}${since} — <a href="/c/${esc(view.token)}/mandates/${esc(m.id)}">Stop them</a></li>`;
    })
    .join('');
  return `<h2 id="mandates">Automatic payments</h2><ul>${items}</ul>`;
}

/** The customer's page. */
export function portalHome(view: PortalView): string {
  const open = view.plans.filter((p) => p.status === 'active');
  const done = view.plans.filter((p) => p.status !== 'active');
  const totals = new Map<string, number>();
  for (const p of open) totals.set(p.currency, (totals.get(p.currency) ?? 0) + p.balance);
  const owed = [...totals].map(([currency, amount]) => money(amount, currency)).join(' and ');
  const intro = owed
    ? `<p>You have <strong>${owed}</strong> left to pay to ${esc(view.business.name)}.</p>`
    : `<p>You owe nothing to ${esc(view.business.name)} now.</p>`;
  const notice = view.notice ? `<p class="receipt-valid" role="status">${esc(view.notice)}</p>` : '';
  const problem = view.problem ? `<p class="problem" role="alert">${esc(view.problem)}</p>` : '';
  return portalPage(
    view.business,
    `Your account with ${view.business.name}`,
    `<h1>Hello, ${esc(view.customerName)}</h1>
${view.test ? '<p class="note">Test mode: no money moves.</p>' : ''}${notice}${problem}${intro}
${[...open, ...done].map((plan) => planSection(view, plan)).join('\n')}
${paymentsSection(view)}
<h2 id="statement">Statement</h2>
<p>Every charge and payment with the running balance.</p>
<div class="actions"><a class="button" href="/c/${esc(view.token)}/statement">View statement</a><a class="button" href="/c/${esc(view.token)}/statement.pdf">Download PDF</a></div>
${mandatesSection(view)}
${contactHtml(view.business, 'Questions? Contact')}`,
  );
}

/** Asks before a mandate is revoked: a link must not stop payments by being opened. */
export function revokeMandateForm(
  view: { token: string; business: BusinessCard },
  mandate: PortalMandate,
): string {
  return portalPage(
    view.business,
    'Stop automatic payments',
    `<h1>Stop automatic payments?</h1>
<p>${esc(view.business.name)} will no longer take payments automatically on this authority. What you owe stays owed: you can pay it from your page.</p>
<form method="post"><div class="actions"><button class="approve" type="submit">Stop automatic payments</button><a class="button decline" href="/c/${esc(view.token)}">Keep them</a></div></form>
<p class="note">Reference ${esc(mandate.id)}</p>`,
  );
}

export type ClosedLink = 'unknown' | 'expired' | 'revoked' | 'rate_limited' | 'error';

/** A link that opens nothing, and why, with what the customer can do. */
export function closedLinkPage(
  reason: ClosedLink,
  business: BusinessCard | null,
): { status: number; html: string } {
  const ask = business
    ? contactHtml(business, 'For a new link, contact')
    : '<p>Ask the business that sent it for a new link.</p>';
  const pages: Record<ClosedLink, [number, string, string]> = {
    unknown: [404, 'Link not valid', '<p>This link is not valid. Check that it was copied whole.</p>'],
    expired: [
      410,
      'Link expired',
      `<p>This link has expired, and nothing can be seen or paid with it.</p>${ask}`,
    ],
    revoked: [
      410,
      'Link withdrawn',
      `<p>This link was withdrawn, and nothing can be seen or paid with it.</p>${ask}`,
    ],
    rate_limited: [
      429,
      'Too many requests',
      '<p>Nothing was changed. Wait a minute, then open the link again.</p>',
    ],
    error: [500, 'Something went wrong', '<p>Nothing was changed. Open the link again.</p>'],
  };
  const [status, title, body] = pages[reason];
  const html = `<h1>${title}</h1>${body}`;
  return { status, html: business ? portalPage(business, title, html) : page(title, html) };
}
