import { randomUUID } from 'node:crypto';
import { escapeHtml } from '../../http/html-page.js';
import { shortDayInWords } from '../../lib/in-words.js';
import { formatMoney } from '../../lib/money.js';
import type { ApiError } from './console.api.js';
import { tokenField } from './console.layout.js';
import type { Visit } from './console.visit.js';

/** Pieces every console page is made of. Everything passed in as text is escaped here. */

export const esc = (value: unknown) => escapeHtml(value === null || value === undefined ? '' : String(value));

/** Minor units in the currency's own form: 150000 NGN -> "₦1,500.00". */
export const money = (minor: number, currency: string) => esc(formatMoney(minor, currency));

const dateFormats = new Map<string, Intl.DateTimeFormat>();
function formatIn(timeZone: string, withTime: boolean) {
  const key = `${timeZone}|${withTime}`;
  let format = dateFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      ...(withTime ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' as const } : {}),
      timeZone,
    });
    dateFormats.set(key, format);
  }
  return format;
}

/** A calendar date (`YYYY-MM-DD`) as people read it: "26 Nov 2026". */
export const day = (date: string | null | undefined) => (date ? esc(shortDayInWords(date)) : '');

/** An instant on the wall clock of the workspace's zone: "26 Nov 2026, 14:05". */
export const when = (visit: Visit, instant: string | null | undefined) =>
  instant ? esc(formatIn(visit.workspace.timeZone, true).format(new Date(instant))) : '';

/** A status as words in a bordered pill: readable without colour, the colour only repeats it. */
export function status(value: string | null | undefined): string {
  if (!value) return '';
  const tone = /overdue|failed|reversed|revoked|cancelled|expired|disabled|written_off|blocked/.test(value)
    ? ' bad'
    : /pending|scheduled|processing|partially|paused|queued/.test(value)
      ? ' wait'
      : /paid|succeeded|active|completed|recorded|delivered|sent/.test(value)
        ? ' good'
        : '';
  return `<span class="status${tone}">${esc(value.replaceAll('_', ' '))}</span>`;
}

export interface Column<R> {
  head: string;
  cell: (row: R) => string;
  numeric?: boolean;
}

/** A table inside a scrolling box (phones scroll it sideways), with a caption for screen readers and eyes. */
export function table<R>(
  caption: string,
  columns: readonly Column<R>[],
  rows: readonly R[],
  empty = 'Nothing here yet.',
) {
  if (rows.length === 0) return `<p class="note">${esc(empty)}</p>`;
  const head = columns
    .map((c) => `<th scope="col"${c.numeric ? ' class="num"' : ''}>${esc(c.head)}</th>`)
    .join('');
  const body = rows
    .map(
      (row) =>
        `<tr>${columns.map((c) => `<td${c.numeric ? ' class="num"' : ''}>${c.cell(row)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<div class="scroll"><table><caption>${esc(caption)}</caption><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table></div>`;
}

/** A link to the next page of a list (the API's cursor), keeping the filters. */
export function pager(path: string, query: Record<string, string | undefined>, nextCursor: string | null) {
  if (!nextCursor) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) search.set(name, value);
  search.set('cursor', nextCursor);
  return `<p><a class="button secondary" href="${esc(`${path}?${search}`)}">Next page</a></p>`;
}

/** The opening of a form that changes something: the form token, and a key so a double submit changes it once. */
export function formStart(
  visit: Visit,
  action: string,
  options: { className?: string; label?: string } = {},
) {
  return `<form method="post" action="${esc(action)}" class="${esc(options.className ?? 'stack')}"${
    options.label ? ` aria-label="${esc(options.label)}"` : ''
  }>${tokenField(visit)}<input type="hidden" name="idempotency_key" value="${randomUUID()}">`;
}

export interface FieldOptions {
  label: string;
  name: string;
  type?: string;
  value?: string | null;
  required?: boolean;
  hint?: string;
  /** The API's complaint about this field, shown beside it. */
  error?: string;
  options?: readonly { value: string; label: string }[];
  attributes?: string;
}

/** A labelled input (or select, or textarea), its hint and its error tied to it for screen readers. */
export function field(f: FieldOptions): string {
  const id = `f-${f.name}`;
  const described = [f.hint ? `${id}-hint` : '', f.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const common = `id="${id}" name="${esc(f.name)}"${f.required ? ' required' : ''}${
    described ? ` aria-describedby="${described}"` : ''
  }${f.error ? ' aria-invalid="true"' : ''} ${f.attributes ?? ''}`;
  const control = f.options
    ? `<select ${common}>${f.options
        .map(
          (o) =>
            `<option value="${esc(o.value)}"${o.value === (f.value ?? '') ? ' selected' : ''}>${esc(o.label)}</option>`,
        )
        .join('')}</select>`
    : f.type === 'textarea'
      ? `<textarea ${common} rows="3">${esc(f.value)}</textarea>`
      : `<input ${common} type="${esc(f.type ?? 'text')}" value="${esc(f.value)}">`;
  return `<div><label for="${id}">${esc(f.label)}</label>${
    f.hint ? `<span class="hint" id="${id}-hint">${esc(f.hint)}</span>` : ''
  }${control}${f.error ? `<span class="field-error" id="${id}-error">${esc(f.error)}</span>` : ''}</div>`;
}

/** The API's refusal, in words, at the top of a form (its field errors go beside the fields). */
export function problem(error: ApiError | null | undefined): string {
  if (!error) return '';
  const fields = error.details?.fields ?? {};
  const list = Object.entries(fields)
    .map(([name, message]) => `<li>${esc(name)}: ${esc(message)}</li>`)
    .join('');
  return `<div class="problem" role="alert"><strong>${esc(error.message)}</strong>${list ? `<ul>${list}</ul>` : ''}</div>`;
}

/** A message after a change, chosen by code so a link cannot make the console say anything else. */
export function notice(code: string | undefined, messages: Readonly<Record<string, string>>): string {
  const text = code ? messages[code] : undefined;
  return text ? `<div class="notice" role="status">${esc(text)}</div>` : '';
}

/** The Idempotency-Key of a posted form (its hidden field), when it carries a well-formed one. */
export function idempotencyKeyOf(form: Record<string, string | undefined>): string | undefined {
  const key = form.idempotency_key;
  return key && /^[0-9a-f-]{36}$/.test(key) ? key : undefined;
}
