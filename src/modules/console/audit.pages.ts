import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { startOfDay, startOfFollowingDay } from '../../lib/calendar.js';
import type { Page } from '../../lib/cursor.js';
import type { AuditEntry } from '../audit/audit.schemas.js';
import { peopleNames } from '../people/index.js';
import { esc, field, pager, problem, when } from './console.html.js';
import { sendPage } from './console.layout.js';
import { visitIn } from './console.visit.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Where the console shows a record, by the kind the trail names it. */
const PAGE_OF: Record<string, string> = {
  customer: '/console/customers/',
  track: '/console/plans/',
  payment: '/console/payments/',
};

function changesText(changes: AuditEntry['changes']): string {
  const shown = (value: unknown) =>
    value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value);
  const lines = Object.entries(changes).map(
    ([name, [before, after]]) =>
      `<li><strong>${esc(name)}</strong>: ${esc(shown(before))} → ${esc(shown(after))}</li>`,
  );
  return lines.length ? `<ul>${lines.join('')}</ul>` : '';
}

/** The audit trail: who changed what, when and why, for owners, admins and viewers. */
export function auditPages(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/audit',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      if (!visit.can('see_audit'))
        return sendPage(
          reply,
          visit,
          {
            title: 'Audit trail',
            section: 'audit',
            body: '<p>Your role does not show the audit trail; ask an owner or admin.</p>',
          },
          403,
        );
      const q = request.query;
      const problems: Record<string, string> = {};
      for (const name of ['from', 'to'] as const) {
        const value = q[name];
        if (value && !DATE.test(value)) problems[name] = 'must be a date such as 2026-11-26';
      }
      const query = {
        actor_id: q.actor_id?.trim() || undefined,
        record_id: q.record_id?.trim() || undefined,
        from: q.from && !problems.from ? startOfDay(q.from, visit.workspace.timeZone) : undefined,
        to: q.to && !problems.to ? startOfFollowingDay(q.to, visit.workspace.timeZone) : undefined,
        cursor: q.cursor || undefined,
        limit: 50,
      };
      const answer = Object.keys(problems).length
        ? null
        : await visit.api.get<Page<AuditEntry>>('/audit-log', query);
      const entries = answer?.ok ? answer.data.items : [];
      const names = await peopleNames(
        ctx.db,
        entries.flatMap((e) => (e.actor.type === 'user' && e.actor.id ? [e.actor.id] : [])),
      );
      const who = (e: AuditEntry) => {
        if (e.actor.type === 'user' && e.actor.id) {
          const person = names.get(e.actor.id);
          return `${esc(person?.name ?? person?.email ?? e.actor.id)} (person)`;
        }
        if (e.actor.type === 'payer') return `The customer ${esc(e.actor.id)} (their page)`;
        return e.actor.type === 'key' ? `API key ${esc(e.actor.id)}` : 'paytrack';
      };
      const record = (e: AuditEntry) => {
        if (!e.record.id) return esc(e.record.type);
        const base = e.record.type ? PAGE_OF[e.record.type] : undefined;
        const label = `${esc(e.record.type)} ${esc(e.record.id)}`;
        return base ? `<a href="${esc(base + encodeURIComponent(e.record.id))}">${label}</a>` : label;
      };
      const card = (e: AuditEntry) => `<li class="card work audit-entry">
<h3><code>${esc(e.action)}</code> ${record(e)}</h3>
<p class="note">${when(visit, e.createdAt)} · ${who(e)}</p>
${changesText(e.changes)}${e.reason ? `<p>Reason: ${esc(e.reason)}</p>` : ''}
</li>`;
      const fieldErrors = answer && !answer.ok ? (answer.error.details?.fields ?? {}) : problems;
      const filters = `<form method="get" action="/console/audit" class="filters" aria-label="Filter the audit trail">
${field({ label: 'Person or key id', name: 'actor_id', value: q.actor_id ?? '', hint: 'usr_… or key_…', error: fieldErrors.actor_id })}
${field({ label: 'Record id', name: 'record_id', value: q.record_id ?? '', hint: 'cus_…, trk_…, pay_…', error: fieldErrors.record_id })}
${field({ label: 'From', name: 'from', type: 'date', value: q.from ?? '', error: fieldErrors.from })}
${field({ label: 'To', name: 'to', type: 'date', value: q.to ?? '', error: fieldErrors.to })}
<button type="submit">Filter</button></form>`;
      const body = `<p class="note">Every change made by a person in the console or by an API key, newest first, with what changed and why. Entries are never changed or deleted. Times in ${esc(visit.workspace.timeZone)}.</p>
${filters}
${answer && !answer.ok ? problem(answer.error) : Object.keys(problems).length ? problem({ code: 'validation_error', message: 'Check the filters.', details: { fields: problems } }) : ''}
<h2>Changes, newest first</h2>
${entries.length ? `<ol class="worklist audit">${entries.map(card).join('\n')}</ol>` : '<p class="note">No changes match.</p>'}
${answer?.ok ? pager('/console/audit', { actor_id: q.actor_id, record_id: q.record_id, from: q.from, to: q.to }, answer.data.next_cursor) : ''}`;
      return sendPage(
        reply,
        visit,
        { title: 'Audit trail', section: 'audit', body },
        answer && !answer.ok ? answer.status : Object.keys(problems).length ? 422 : 200,
      );
    },
  );
}
