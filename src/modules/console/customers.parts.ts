import { phoneInWords } from '../../lib/in-words.js';
import type { Customer, CustomerBalance } from '../customers/customers.schemas.js';
import type { Reminder, ReminderLog } from '../reminders/reminders.schemas.js';
import type { ApiError } from './console.api.js';
import { esc, money, status, when } from './console.html.js';
import type { Visit } from './console.visit.js';

/** Pieces the pages of today's work, customers and reminders share. */

export interface List<T> {
  items: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** A customer id, plan id or cursor as a link or query may carry it: anything else is not looked up. */
export const ID = /^[a-z]{2,4}_[A-Za-z0-9]{1,60}$/;
export const isId = (value: unknown, prefix: string): value is string =>
  typeof value === 'string' && ID.test(value) && value.startsWith(`${prefix}_`);

/**
 * A phone number to call and to message: `tel:` with the E.164 number, written as it is dialled from abroad,
 * and a WhatsApp link (`wa.me` takes the digits without the `+`). `whose` names the customer for screen readers.
 */
export function phoneLinks(e164: string | null | undefined, whose = ''): string {
  if (!e164) return '';
  const digits = e164.replace(/\D/g, '');
  // The name goes in aria-label, not in visually hidden text: that is absolutely placed, and inside a table's
  // scrolling box it would widen the page on a phone.
  const label = whose ? ` aria-label="WhatsApp ${esc(whose)}"` : '';
  return `<span class="phone"><a href="tel:${esc(`+${digits}`)}">${esc(phoneInWords(e164))}</a> <a class="wa" href="https://wa.me/${esc(digits)}"${label}>WhatsApp</a></span>`;
}

/** What a customer owes, per currency: outstanding, the overdue part, and any credit. */
export function balancesText(balances: readonly CustomerBalance[]): string {
  if (balances.length === 0) return '<span class="note">Nothing owed</span>';
  return balances
    .map((b) => {
      const parts = [`${money(b.outstanding, b.currency)} owed`];
      if (b.overdue > 0) parts.push(`<strong>${money(b.overdue, b.currency)} overdue</strong>`);
      if (b.credit > 0) parts.push(`${money(b.credit, b.currency)} credit`);
      return `<span class="balance">${parts.join(', ')}</span>`;
    })
    .join('<br>');
}

/** A customer's name as a link to their page. */
export const customerLink = (id: string | null, name: string | null) =>
  id ? `<a href="/console/customers/${esc(id)}">${esc(name ?? id)}</a>` : esc(name ?? '');

/** A plan as a link to its page (the plans section's). */
export const planLink = (id: string | null, title: string | null) =>
  id ? `<a href="/console/plans/${esc(id)}">${esc(title ?? id)}</a>` : esc(title ?? '');

const CHANNELS: Record<string, string> = { email: 'E-mail', sms: 'SMS', whatsapp: 'WhatsApp' };
export const channelName = (channel: string) => CHANNELS[channel] ?? channel;

/** A reminder and the latest word on its delivery (its newest log row), if it has been tried. */
export interface ReminderSeen {
  reminder: Reminder;
  log: ReminderLog | null;
}

/** The latest log row of each reminder, read through the API. */
export async function withDelivery(visit: Visit, reminders: readonly Reminder[]): Promise<ReminderSeen[]> {
  return Promise.all(
    reminders.map(async (reminder) => {
      const logs = await visit.api.get<List<ReminderLog>>('/reminders/logs', {
        reminderId: reminder.id,
        limit: 1,
      });
      return { reminder, log: logs.ok ? (logs.data.items[0] ?? null) : null };
    }),
  );
}

/** The newest reminder about a plan (or a customer), with its delivery; null when none was ever queued. */
export async function lastReminder(
  visit: Visit,
  about: { trackId?: string; customerId?: string },
): Promise<ReminderSeen | null> {
  const found = await visit.api.get<List<Reminder>>('/reminders', { ...about, limit: 1 });
  const reminder = found.ok ? found.data.items[0] : undefined;
  if (!reminder) return null;
  return (await withDelivery(visit, [reminder]))[0] ?? null;
}

/** When a reminder went (or is to go), on which channel, and what became of it. */
export function reminderSummary(visit: Visit, seen: ReminderSeen | null): string {
  if (!seen) return '<span class="note">None yet</span>';
  const { reminder, log } = seen;
  const at = reminder.sentAt ?? reminder.sendAt;
  const delivery = log?.status ?? reminder.status;
  const why = reminder.skipReason ?? log?.skipReason ?? null;
  return `${when(visit, at)}, ${esc(channelName(reminder.channel))} ${status(delivery)}${
    why ? ` <span class="note">(${esc(why.replaceAll('_', ' '))})</span>` : ''
  }`;
}

/** The API's complaint about one field of a form: its field errors are keyed by the API's field names. */
export const fieldErrorOf = (error: ApiError | null | undefined, name: string) =>
  error?.details?.fields?.[name];

/** Only a page of the console is a place to go back to after a form. */
export function backTo(value: string | undefined, fallback: string): string {
  return value && /^\/console\/(today|customers\/cus_[A-Za-z0-9]{1,60})$/.test(value) ? value : fallback;
}

export type { Customer };
