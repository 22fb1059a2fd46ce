import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { startOfDay, startOfFollowingDay } from '../../lib/calendar.js';
import { recentExports } from '../exports/exports.service.js';
import { day, esc, field, formStart, idempotencyKeyOf, notice, status, table, when } from './console.html.js';
import { type ConsoleForm, type Visit, visitIn } from './console.visit.js';
import {
  type FormShown,
  fieldsRefused,
  notGiven,
  problemOf,
  redirectTo,
  refuse,
  sendSettings,
  settingsView,
} from './settings.common.js';

const PAGE = '/console/settings/exports';

interface ReportExport {
  id: string;
  report: string;
  format: string;
  from: string | null;
  to: string | null;
  status: 'queued' | 'running' | 'done' | 'failed';
  progress: { rows: number; total: number | null };
  downloadUrl: string | null;
  expiresAt: string | null;
  error: string | null;
  createdAt: string;
  completedAt: string | null;
}

const REPORTS = [
  { value: 'payments', label: 'Payments (every payment in the period)' },
  { value: 'ledger', label: 'Ledger (every money change in the period)' },
  { value: 'summary', label: 'Summary report' },
  { value: 'collections', label: 'Collections report' },
  { value: 'overdue', label: 'Overdue report' },
];

const FORMATS = [
  { value: 'csv', label: 'CSV (spreadsheets)' },
  { value: 'json', label: 'JSON' },
  { value: 'jsonl', label: 'JSON lines' },
];

const LABELS = { report: 'What', format: 'Format', from: 'From', to: 'To' };

const MESSAGES = {
  requested:
    'The export is queued: it is written in the background. Open this page again in a moment to download it.',
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A real calendar date from 1970 to 9999 (not 2027-02-30). */
const isDate = (text: string) =>
  DATE.test(text) &&
  Number(text.slice(0, 4)) >= 1970 &&
  new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) === text;

/** The dates of an export's range, as days of the workspace's zone; `to` is the last day included. */
function rangeText(visit: Visit, e: ReportExport): string {
  const date = (instant: string) =>
    new Intl.DateTimeFormat('en-CA', { timeZone: visit.workspace.timeZone }).format(new Date(instant));
  const from = e.from ? day(date(e.from)) : 'the start';
  const to = e.to ? day(date(new Date(Date.parse(e.to) - 1).toISOString())) : 'now';
  return `${from} to ${to}`;
}

function requestForm(visit: Visit, typed: ConsoleForm = {}, errors: Record<string, string> = {}): string {
  const err = (name: string) => (errors[name] ? { error: errors[name] } : {});
  return `<div class="card settings-card"><h2>Export</h2>
${formStart(visit, PAGE, { label: 'Request an export' })}
${field({ name: 'report', label: 'What', options: REPORTS, value: typed.report ?? 'payments', ...err('report') })}
${field({ name: 'format', label: 'Format', options: FORMATS, value: typed.format ?? 'csv', ...err('format') })}
<div class="filters">
${field({ name: 'from', label: 'From', type: 'date', value: typed.from ?? '', hint: 'First day; empty for the start.', ...err('from') })}
${field({ name: 'to', label: 'To', type: 'date', value: typed.to ?? '', hint: 'Last day, included; empty for today.', ...err('to') })}
</div>
<p class="note">Days in ${esc(visit.workspace.timeZone)}.</p>
<div class="actions"><button type="submit">Request export</button></div>
</form></div>`;
}

async function exportsPage(ctx: AppContext, visit: Visit, options: FormShown): Promise<string> {
  const exports = await recentExports(ctx, { workspaceId: visit.workspace.id, mode: visit.mode }, 20);
  const reportName = (value: string) => REPORTS.find((r) => r.value === value)?.label.split(' (')[0] ?? value;
  const rows = table(
    'Latest exports',
    [
      {
        head: 'Export',
        cell: (e: ReportExport) =>
          `${esc(reportName(e.report))}, ${esc(e.format)}<br><span class="note">${rangeText(visit, e)}</span>`,
      },
      {
        head: 'Status',
        cell: (e: ReportExport) =>
          `${status(e.status)}${e.error ? `<br><span class="note">${esc(e.error)}</span>` : ''}`,
      },
      {
        head: 'Rows',
        cell: (e: ReportExport) => esc(e.progress.rows.toLocaleString('en-US')),
        numeric: true,
      },
      { head: 'Requested', cell: (e: ReportExport) => when(visit, e.createdAt) },
      {
        head: 'File',
        cell: (e: ReportExport) =>
          e.status === 'done' && e.downloadUrl
            ? `<a href="${PAGE}/${encodeURIComponent(e.id)}/download" aria-label="Download ${esc(e.report)} ${esc(e.format)} ${esc(e.id)}">Download</a><br><span class="note">until ${when(visit, e.expiresAt)}</span>`
            : e.status === 'done'
              ? '<span class="note">expired</span>'
              : '',
      },
    ],
    exports,
    'No exports yet.',
  );
  const errors = options.error?.details?.fields ?? {};
  return `${notice(options.done, MESSAGES)}${problemOf(options.error, LABELS)}${
    visit.can('change_settings') ? requestForm(visit, options.typed, errors) : ''
  }<p class="note">A file can be downloaded for one hour after it is written, then it is removed.</p>${rows}`;
}

export function exportsSettings(app: FastifyInstance, ctx: AppContext) {
  const show = settingsView('Reports and exports', 'exports', (visit, options: FormShown) =>
    exportsPage(ctx, visit, options),
  );

  app.get<{ Querystring: { done?: string } }>(
    '/exports',
    { schema: { hide: true } },
    async (request, reply) => show(reply, visitIn(request), { done: request.query.done }),
  );

  app.post<{ Body: ConsoleForm }>('/exports', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    if (!visit.can('change_settings'))
      return refuse(reply, visit, 'exports', 'Only an owner or admin requests exports.');
    const form = request.body;
    const from = (form.from ?? '').trim();
    const to = (form.to ?? '').trim();
    const errors: Record<string, string> = {};
    if (from && !isDate(from)) errors.from = 'must be a date such as 2027-01-31';
    if (to && !isDate(to)) errors.to = 'must be a date such as 2027-01-31';
    if (!errors.from && !errors.to && from && to && from > to) errors.from = 'must not be after To';
    if (Object.keys(errors).length > 0)
      return show(
        reply,
        visit,
        {
          error: fieldsRefused('No export was requested: correct the fields named below.', errors),
          typed: form,
        },
        422,
      );
    const zone = visit.workspace.timeZone;
    const created = await visit.api.send<ReportExport>(
      'POST',
      '/reports/export',
      {
        report: form.report ?? '',
        format: form.format ?? '',
        ...(from ? { from: startOfDay(from, zone) } : {}),
        ...(to ? { to: startOfFollowingDay(to, zone) } : {}),
      },
      idempotencyKeyOf(form),
    );
    if (created.ok) return redirectTo(reply, PAGE, 'requested');
    return show(reply, visit, { error: created.error, typed: form }, created.status);
  });

  app.get<{ Params: { id: string } }>(
    '/exports/:id/download',
    { schema: { hide: true } },
    async (request, reply) => {
      const visit = visitIn(request);
      const shown = await visit.api.get<ReportExport>(
        `/reports/exports/${encodeURIComponent(request.params.id)}`,
      );
      if (!shown.ok) return notGiven(reply, visit, 'exports', 'export', shown);
      if (shown.data.status !== 'done' || !shown.data.downloadUrl)
        return sendSettings(
          reply,
          visit,
          {
            title: 'Not ready',
            page: 'exports',
            body: `<div class="problem" role="alert"><strong>${
              shown.data.status === 'done'
                ? 'The file of this export was removed after its hour; request a new export.'
                : `This export is ${esc(shown.data.status)}: there is no file to download yet.`
            }</strong></div><p><a href="${PAGE}">Back to the exports</a></p>`,
          },
          409,
        );
      // The signed link of the API, on this server whatever its public address.
      const link = new URL(shown.data.downloadUrl);
      return redirectTo(reply, `${link.pathname}${link.search}`);
    },
  );
}
