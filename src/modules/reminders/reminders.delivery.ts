import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { quietHoursEnd } from '../../lib/calendar.js';
import { type ContactPolicy, contactPolicyOf } from '../../lib/contact-policy.js';
import { newId } from '../../lib/ids.js';
import { pdfBytes } from '../../lib/pdf/index.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
import type { DeliveryReceipt, MessageAttachment } from '../../ports/messages.js';
import { optOutsOf } from '../customers/customers.service.js';
import { messageSenderFor } from '../messages/senders.service.js';
import { receiptOfPayment } from '../payments/index.js';
import { CUSTOMER_PAGE_LINK, linkForMessage } from '../portal/index.js';
import { factsOf, loadSubject, skipReasonOf, withdrawnReasonOf } from './reminders.facts.js';
import { toApi } from './reminders.mapper.js';
import * as repo from './reminders.repository.js';
import type { LogSkipReason, ReminderLogsTable, RemindersTable } from './reminders.table.js';
import { renderReminder } from './reminders.templates.js';

/** A delivery try holds its reminder this long; a worker that stops mid-send leaves it to the next after. */
const CLAIM_MS = 2 * 60_000;
/** Waits before the 3 retries of a failed send. */
export const RETRY_AFTER_MS = [60_000, 5 * 60_000, 30 * 60_000] as const;
const MAX_TRIES = RETRY_AFTER_MS.length + 1;
const DAY_MS = 24 * 60 * 60_000;

const later = (from: string, ms: number) => new Date(Date.parse(from) + ms).toISOString();

/** A final answer without a send: skipped or cancelled, with its reason. */
async function close(
  ctx: AppContext,
  held: RemindersTable,
  status: 'skipped' | 'cancelled',
  reason: string,
  now: string,
): Promise<boolean> {
  const closed = await repo.updateIn(
    ctx.db,
    held.id,
    ['queued'],
    { status, skip_reason: reason, next_try_at: null, claimed_until: null, updated_at: now },
    held.claimed_until ?? undefined,
  );
  return closed !== undefined;
}

/** A log row of a reminder: one delivery try, or a message held back. */
function logRow(
  tenant: Tenant,
  held: RemindersTable,
  now: string,
  row: Pick<ReminderLogsTable, 'status' | 'error'> & Partial<ReminderLogsTable>,
): ReminderLogsTable {
  return {
    id: newId('reminderLog', tenant.clock.now()),
    workspace_id: held.workspace_id,
    mode: held.mode,
    reminder_id: held.id,
    channel: held.channel,
    recipient: held.recipient,
    provider: 'none',
    provider_message_id: null,
    delivered_at: null,
    provider_error_code: null,
    skip_reason: null,
    created_at: now,
    ...row,
  };
}

/** Records one delivery try: its log row, and the reminder sent, retried later, or failed after the last try. */
async function recordTry(
  ctx: AppContext,
  tenant: Tenant,
  held: RemindersTable,
  sent: { subject: string | null; message: string },
  receipt: DeliveryReceipt,
  now: string,
): Promise<void> {
  await inTransaction(ctx, tenant, async (trx) => {
    await repo.insertLog(
      trx,
      logRow(tenant, held, now, {
        status: receipt.status,
        provider: receipt.provider,
        provider_message_id: receipt.providerMessageId,
        error: receipt.error,
        // Test mode's simulator stands for a provider whose receipt says delivered.
        delivered_at: receipt.status === 'simulated' ? now : null,
      }),
    );
    const tries = held.attempts + 1;
    const delivered = receipt.status !== 'failed';
    const retryIn = RETRY_AFTER_MS[tries - 1];
    const changes: Partial<RemindersTable> = delivered
      ? { status: 'sent', sent_at: now, last_error: null, next_try_at: null }
      : tries < MAX_TRIES && retryIn !== undefined
        ? { last_error: receipt.error, next_try_at: later(now, retryIn) }
        : { status: 'failed', last_error: receipt.error, next_try_at: null };
    const updated = await repo.updateIn(
      trx,
      held.id,
      ['queued'],
      { ...changes, ...sent, attempts: tries, claimed_until: null, updated_at: now },
      held.claimed_until ?? undefined,
    );
    if (!updated) throw new Error(`reminder ${held.id} changed while it was being sent`);
    if (updated.status === 'sent') await recordEvent(trx, tenant, 'reminder.sent', toApi(updated));
    if (receipt.status === 'simulated') await recordEvent(trx, tenant, 'reminder.delivered', toApi(updated));
    if (updated.status === 'failed') await recordEvent(trx, tenant, 'reminder.failed', toApi(updated));
  });
}

/**
 * The text as sent: a customer page link it carries is made now, so its token is in the message alone (the
 * reminder keeps `{customer_page_link}`). Null when the link it was to send was revoked or expired first.
 */
async function withLinkMade(ctx: AppContext, tenant: Tenant, held: RemindersTable, text: string) {
  if (!text.includes(CUSTOMER_PAGE_LINK)) return text;
  const url = await linkForMessage(ctx.db, tenant, {
    customerId: held.customer_id,
    linkId: held.portal_link_id,
  });
  return url === null ? null : text.replaceAll(CUSTOMER_PAGE_LINK, url);
}

/** What an e-mail carries besides its text: a receipt message's PDF, drawn as the receipt stands now. */
async function attachmentsOf(
  ctx: AppContext,
  tenant: Tenant,
  held: RemindersTable,
): Promise<MessageAttachment[]> {
  if (held.channel !== 'email' || held.payment_id === null) return [];
  const { number, pdf } = await receiptOfPayment(ctx, tenant, held.payment_id);
  return [
    { filename: `receipt-${number}.pdf`, contentType: 'application/pdf', content: await pdfBytes(pdf) },
  ];
}

/** A log row for a message the contact policy held back: why, in its own words. */
async function logHeldBack(
  ctx: AppContext,
  tenant: Tenant,
  held: RemindersTable,
  reason: LogSkipReason,
  error: string,
  now: string,
): Promise<void> {
  await repo.insertLog(ctx.db, logRow(tenant, held, now, { status: 'skipped', error, skip_reason: reason }));
}

/** Whether the customer had as many automatic messages as the policy allows, in 24 hours or in 7 days; why. */
async function frequencyCapped(
  ctx: AppContext,
  tenant: Tenant,
  customerId: string,
  now: string,
  policy: ContactPolicy,
): Promise<string | null> {
  const day = await repo.automaticMessagesSince(ctx.db, tenant, customerId, later(now, -DAY_MS));
  if (day >= policy.maxPerDay) {
    return `${day} automatic message(s) in the last 24 hours: the contact policy allows ${policy.maxPerDay}.`;
  }
  const week = await repo.automaticMessagesSince(ctx.db, tenant, customerId, later(now, -7 * DAY_MS));
  if (week >= policy.maxPerWeek) {
    return `${week} automatic message(s) in the last 7 days: the contact policy allows ${policy.maxPerWeek}.`;
  }
  return null;
}

/**
 * One delivery try of a queued reminder whose time has come, under a claim (two workers never send it at once):
 * withdrawn when its customer or plan was archived, skipped when the money no longer calls for it, held until
 * 08:00 when an automatic one falls in quiet hours; otherwise written again from its template with today's
 * figures, sent outside any transaction, and recorded. Returns whether it handled the reminder.
 */
export async function deliverReminder(ctx: AppContext, tenant: Tenant, id: string): Promise<boolean> {
  const now = tenant.clock.now().toISOString();
  const held = await repo.claim(ctx.db, id, now, later(now, CLAIM_MS));
  if (!held) return false;
  const subject = await loadSubject(ctx.db, tenant, {
    customerId: held.customer_id,
    trackId: held.track_id,
    obligationId: held.obligation_id,
  });
  const withdrawn = withdrawnReasonOf(subject);
  if (withdrawn) return close(ctx, held, 'cancelled', withdrawn, now);
  if (optOutsOf(subject.customer).includes(held.channel)) {
    await logHeldBack(ctx, tenant, held, 'opted_out', 'The customer opted out of this channel (STOP).', now);
    return close(ctx, held, 'skipped', 'opted_out', now);
  }
  const skip = await skipReasonOf(ctx.db, subject, {
    templated: held.templated === 1,
    automatic: held.source === 'schedule',
  });
  if (skip) return close(ctx, held, 'skipped', skip, now);
  if (held.source === 'schedule') {
    const policy = contactPolicyOf(subject.workspace.contact_policy);
    const zone = subject.customer.time_zone ?? subject.workspace.timezone;
    const quietUntil = quietHoursEnd(now, zone, policy.quietHours);
    if (quietUntil) {
      await logHeldBack(
        ctx,
        tenant,
        held,
        'quiet_hours',
        `Quiet hours in ${zone}: sent at ${quietUntil}.`,
        now,
      );
      await repo.updateIn(
        ctx.db,
        held.id,
        ['queued'],
        { next_try_at: quietUntil, send_at: quietUntil, claimed_until: null, updated_at: now },
        held.claimed_until ?? undefined,
      );
      return true;
    }
    // An e-mail standing in for a message that was not delivered is that message, not one more.
    const capped =
      held.fallback_of === null ? await frequencyCapped(ctx, tenant, held.customer_id, now, policy) : null;
    if (capped) {
      await logHeldBack(ctx, tenant, held, 'frequency_cap', capped, now);
      return close(ctx, held, 'skipped', 'frequency_cap', now);
    }
  }
  const written = held.templated === 1 ? renderReminder(held.stage, held.channel, factsOf(subject)) : null;
  const withPageLink =
    held.source === 'schedule' && subject.workspace.customer_page_in_reminders === 1
      ? `${written?.text ?? held.message} See your account and pay: ${CUSTOMER_PAGE_LINK}`
      : (written?.text ?? held.message);
  const sent = {
    subject: held.channel === 'email' ? (written?.subject ?? held.subject) : null,
    message: withPageLink,
  };
  const text = await withLinkMade(ctx, tenant, held, sent.message);
  if (text === null) return close(ctx, held, 'cancelled', 'link_unavailable', now);
  const attachments = await attachmentsOf(ctx, tenant, held);
  const sender = await messageSenderFor(ctx, tenant);
  const receipt = await sender.send({
    channel: held.channel,
    to: held.recipient,
    ...(sent.subject ? { subject: sent.subject } : {}),
    text,
    reference: held.id,
    retried: held.attempts > 0,
    ...(attachments.length > 0 ? { attachments } : {}),
  });
  await recordTry(ctx, tenant, held, sent, receipt, now);
  return true;
}
