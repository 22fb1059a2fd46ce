import type { FastifyReply } from 'fastify';
import { localDate, startOfDay, startOfFollowingDay } from '../../lib/calendar.js';
import { PAYMENT_METHOD_WORDS } from '../payments/payment-methods.js';
import type { ApiError } from './console.api.js';
import { esc, problem } from './console.html.js';
import { type Frame, sendPage } from './console.layout.js';
import type { Visit } from './console.visit.js';

/** Pieces the plan and payment pages share: the records as the API shows them, names, dates, field errors. */

export interface Plan {
  id: string;
  customerId: string;
  title: string;
  amount: number;
  balance: number;
  amountPaid: number;
  currency: string;
  installments: number | null;
  status: 'active' | 'completed' | 'archived';
  dueDate: string | null;
  createdAt: string;
  archivedAt: string | null;
}

export interface Payment {
  id: string;
  trackId: string | null;
  customerId: string | null;
  amount: number;
  currency: string;
  method: string;
  status: 'recorded' | 'reversed' | 'split';
  paidAt: string;
  reference: string | null;
  source: 'api' | 'provider';
  createdAt: string;
  reversedAt: string | null;
  reversalReason: string | null;
  allocations: { obligationId: string; amount: number; reversedAt: string | null }[];
  unallocatedAmount: number;
  unapplied: boolean;
  unappliedReason: string | null;
  provider: string | null;
  refund: { status: string } | null;
  receipt: { number: string; code: string; url: string } | null;
}

export interface Schedule {
  id: string;
  target_id: string | null;
  frequency: string;
  interval: number | null;
  collection_method: string;
  fixed_amount: number;
  currency: string;
  start_date: string;
  end_date: string | null;
  status: 'draft' | 'active' | 'paused' | 'cancelled' | 'completed';
  next_due_date: string | null;
  created_at: string;
}

export interface Obligation {
  id: string;
  /** An instalment of the schedule, or a late fee charged on the instalment `fee_of`. */
  kind: 'instalment' | 'fee';
  fee_of: string | null;
  schedule_id: string;
  track_id: string | null;
  due_date: string;
  amount: number;
  amount_paid: number;
  amount_due: number;
  currency: string;
  status: string;
}

export interface List<T> {
  items: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const customerHref = (id: string) => `/console/customers/${encodeURIComponent(id)}`;
export const planHref = (id: string) => `/console/plans/${encodeURIComponent(id)}`;
export const paymentHref = (id: string) => `/console/payments/${encodeURIComponent(id)}`;

/** A link whose words are a name the API gave, or the id when it gave none. */
export const link = (href: string, text: string | undefined, fallback: string) =>
  `<a href="${esc(href)}">${esc(text ?? fallback)}</a>`;

/**
 * The names of customers (or titles of plans) a list names by id, each read once through the API, at once; an
 * id the person cannot read keeps no name.
 */
export async function namesOf(
  visit: Visit,
  kind: 'customers' | 'tracks',
  ids: readonly (string | null)[],
): Promise<Map<string, string>> {
  const unique = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  const found = await Promise.all(
    unique.map(async (id) => {
      const answer = await visit.api.get<{ name?: string; title?: string }>(
        `/${kind}/${encodeURIComponent(id)}`,
      );
      return [id, answer.ok ? (answer.data.name ?? answer.data.title) : undefined] as const;
    }),
  );
  return new Map(found.filter((entry): entry is readonly [string, string] => entry[1] !== undefined));
}

/** A query parameter when it is one string (not repeated, not missing). */
export const one = (value: unknown) => (typeof value === 'string' ? value : undefined);
/** A form's field without the spaces around it; empty when it was not sent. */
export const trimmed = (value: string | undefined) => (value ?? '').trim();

/** Today's calendar date in the workspace's zone, on its clock. */
export const todayOf = (visit: Visit) => localDate(visit.now, visit.workspace.timeZone);

/** A `YYYY-MM-DD` a date field sent, checked to be a real day; undefined when it is not one. */
export function readDate(text: string | undefined): string | undefined {
  const value = (text ?? '').trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value ? value : undefined;
}

/** The first instant of a calendar date in the workspace's zone: what the API reads back as that date. */
export const startOf = (visit: Visit, date: string) => startOfDay(date, visit.workspace.timeZone);
/** The first instant of the day after a date in the workspace's zone (the end of a "to" filter). */
export const endOf = (visit: Visit, date: string) => startOfFollowingDay(date, visit.workspace.timeZone);

/** The API's refusal with its fields renamed to the form's (`{ paidAt: 'paid_on' }`), the others kept. */
export function renameFields(error: ApiError, names: Readonly<Record<string, string>>): ApiError {
  // A 404 for a record a field names (`details.field`) is that field's error.
  const named = error.details?.field;
  const fields =
    error.details?.fields ?? (typeof named === 'string' ? { [named]: error.message } : undefined);
  if (!fields) return error;
  const renamed: Record<string, string> = {};
  for (const [name, message] of Object.entries(fields)) renamed[names[name] ?? name] = message;
  return { ...error, details: { ...error.details, fields: renamed } };
}

/** The field errors of a refusal (named as the form names its fields). */
export const fieldErrors = (error: ApiError | null | undefined): Record<string, string> => ({
  ...(error?.details?.fields ?? {}),
});

/** A refusal at the top of a form, its fields named by the labels people read beside them. */
export function problemWith(error: ApiError | null | undefined, labels: Readonly<Record<string, string>>) {
  if (!error) return '';
  return problem(renameFields(error, labels));
}

/** A record's page when the API would not give the record: `notFound` for a 404, any other refusal in its words. */
export function recordRefused(
  reply: FastifyReply,
  visit: Visit,
  answer: { status: number; error: ApiError },
  page: Omit<Frame, 'body'>,
  notFound: (reply: FastifyReply, visit: Visit) => FastifyReply,
) {
  if (answer.status === 404) return notFound(reply, visit);
  return sendPage(reply, visit, { ...page, body: problemWith(answer.error, {}) }, answer.status);
}

/** A refusal of the console's own checks, in the shape of the API's, so forms show both alike. */
export const formError = (fields: Record<string, string>): ApiError => ({
  code: 'validation_error',
  message: 'Check the fields marked below.',
  details: { fields },
});

/** A short page body for 403 and 404 answers, with a way back. */
export const backTo = (text: string, href: string, label: string) =>
  `<p>${esc(text)}</p><p><a href="${esc(href)}">${esc(label)}</a></p>`;

/** The words of a value of the API (`bank_transfer` -> "bank transfer") when no label is known. */
export const words = (value: string, labels: Readonly<Record<string, string>> = {}) =>
  labels[value] ?? value.replaceAll('_', ' ');

/** A date or instant in a table cell, kept on one line. */
export const oneLine = (text: string) => `<span class="nowrap">${text}</span>`;

/** The ways a payment is made, as the API names them, in words. */
export const PAYMENT_METHODS: readonly { value: string; label: string }[] = Object.entries(
  PAYMENT_METHOD_WORDS,
).map(([value, label]) => ({ value, label }));
export const PAYMENT_METHOD_LABELS: Readonly<Record<string, string>> = PAYMENT_METHOD_WORDS;
