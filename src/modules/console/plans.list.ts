import type { FastifyReply } from 'fastify';
import { day, esc, money, pager, status, table } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { Visit } from './console.visit.js';
import {
  customerHref,
  type List,
  link,
  namesOf,
  one,
  oneLine,
  type Plan,
  planHref,
  problemWith,
  trimmed,
  words,
} from './plans.parts.js';

/** The list of plans: all, overdue, active, completed or archived, of one customer or of all. */

const SHOW = [
  { value: '', label: 'All plans' },
  { value: 'overdue', label: 'Overdue' },
  { value: 'active', label: 'Active' },
  { value: 'completed', label: 'Completed' },
  { value: 'archived', label: 'Archived' },
] as const;

export async function listPage(reply: FastifyReply, visit: Visit, query: Record<string, unknown>) {
  const show = SHOW.find((s) => s.value === one(query.show))?.value ?? '';
  const customerId = trimmed(one(query.customer_id)) || undefined;
  const answer = await visit.api.get<List<Plan>>('/tracks', {
    status: show === 'active' || show === 'completed' || show === 'archived' ? show : undefined,
    overdue: show === 'overdue' ? true : undefined,
    customerId,
    cursor: one(query.cursor),
    limit: 20,
  });
  const plans = answer.ok ? answer.data.items : [];
  const [names, customer] = await Promise.all([
    namesOf(
      visit,
      'customers',
      plans.map((p) => p.customerId),
    ),
    customerId ? namesOf(visit, 'customers', [customerId]) : Promise.resolve(new Map<string, string>()),
  ]);
  const filters = `<nav aria-label="Filter plans"><ul class="tabs">${SHOW.map((s) => {
    const search = new URLSearchParams();
    if (s.value) search.set('show', s.value);
    if (customerId) search.set('customer_id', customerId);
    const href = `/console/plans${search.size ? `?${search}` : ''}`;
    return `<li><a href="${esc(href)}"${s.value === show ? ' aria-current="page"' : ''}>${esc(s.label)}</a></li>`;
  }).join('')}</ul></nav>`;
  const of = customerId
    ? `<p>Plans of ${link(customerHref(customerId), customer.get(customerId), customerId)}. <a href="/console/plans${
        show ? `?show=${show}` : ''
      }">Plans of every customer</a></p>`
    : '';
  const create = visit.can('edit_records')
    ? `<div class="actions"><a class="button" href="/console/plans/new${
        customerId ? `?customer_id=${encodeURIComponent(customerId)}` : ''
      }">New plan</a></div>`
    : '';
  const caption = show === 'overdue' ? 'Plans with money overdue now' : `${words(show || 'all')} plans`;
  const rows = table(
    caption.charAt(0).toUpperCase() + caption.slice(1),
    [
      { head: 'Plan', cell: (p: Plan) => link(planHref(p.id), p.title, p.id) },
      {
        head: 'Customer',
        cell: (p: Plan) => link(customerHref(p.customerId), names.get(p.customerId), p.customerId),
      },
      { head: 'Balance', numeric: true, cell: (p: Plan) => money(p.balance, p.currency) },
      {
        head: 'Status',
        cell: (p: Plan) => `${status(p.status)}${show === 'overdue' ? ` ${status('overdue')}` : ''}`,
      },
      { head: 'Amount', numeric: true, cell: (p: Plan) => money(p.amount, p.currency) },
      { head: 'Paid', numeric: true, cell: (p: Plan) => money(p.amountPaid, p.currency) },
      { head: 'Due', cell: (p: Plan) => oneLine(day(p.dueDate)) },
    ],
    plans,
    show ? 'No plan matches.' : 'No plans yet.',
  );
  return sendPage(
    reply,
    visit,
    {
      title: 'Plans',
      section: 'plans',
      body: `${create}${filters}${of}${answer.ok ? '' : problemWith(answer.error, {})}${rows}
${answer.ok ? pager('/console/plans', { show, customer_id: customerId }, answer.data.next_cursor) : ''}`,
    },
    answer.ok ? 200 : answer.status,
  );
}
