import type { Trx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
import { customerRow } from '../customers/customers.service.js';
import { toApi } from './reminders.mapper.js';
import * as repo from './reminders.repository.js';
import { recipientOf, reminderRow } from './reminders.service.js';
import type { RemindersTable } from './reminders.table.js';

/** What a provider's delivery receipt said of one message. */
export interface DeliveryReport {
  provider: string;
  providerMessageId: string;
  status: 'sent' | 'delivered' | 'undelivered' | 'failed';
  errorCode: string | null;
}

/**
 * A provider's delivery receipt for a message a reminder sent, in the caller's transaction: its log row moves
 * from `sent` to `delivered` or `undelivered` (a `failed` receipt counts as undelivered), once, with event
 * `reminder.delivered` or `reminder.undelivered`. An SMS or WhatsApp message that was not delivered falls back to
 * the customer's e-mail, once: a new reminder, sent at once, named in the log row. Returns what changed.
 */
export async function deliveryReported(
  trx: Trx,
  tenant: Tenant,
  report: DeliveryReport,
): Promise<'delivered' | 'undelivered' | 'unchanged' | 'unmatched'> {
  const log = await trx
    .selectFrom('reminder_logs')
    .selectAll()
    .where(inTenant(tenant))
    .where('provider', '=', report.provider)
    .where('provider_message_id', '=', report.providerMessageId)
    .executeTakeFirst();
  if (!log) return 'unmatched';
  if (report.status === 'sent') return 'unchanged';
  const delivered = report.status === 'delivered';
  const now = tenant.clock.now().toISOString();
  const changed = await trx
    .updateTable('reminder_logs')
    .set({
      status: delivered ? 'delivered' : 'undelivered',
      delivered_at: now,
      provider_error_code: delivered ? null : (report.errorCode ?? report.status),
    })
    .where('id', '=', log.id)
    .where('status', '=', 'sent')
    .executeTakeFirst();
  if (Number(changed.numUpdatedRows) === 0) return 'unchanged';
  const reminder = (await repo.findById(trx, tenant, log.reminder_id)) as RemindersTable;
  await recordEvent(trx, tenant, delivered ? 'reminder.delivered' : 'reminder.undelivered', toApi(reminder));
  if (!delivered && log.channel !== 'email' && reminder.fallback_of === null) {
    const fallback = await fallBackToEmail(trx, tenant, reminder, now);
    if (fallback) {
      await trx
        .updateTable('reminder_logs')
        .set({
          error: `Not delivered (${report.errorCode ?? report.status}); sent again by e-mail as ${fallback.id}.`,
        })
        .where('id', '=', log.id)
        .execute();
    }
  }
  return delivered ? 'delivered' : 'undelivered';
}

/** The same reminder again by e-mail, at once, when the customer has an address; null when not. */
async function fallBackToEmail(trx: Trx, tenant: Tenant, reminder: RemindersTable, now: string) {
  const customer = await customerRow(trx, tenant, reminder.customer_id);
  const recipient = recipientOf(customer, 'email');
  if (!recipient) return null;
  const row = await reminderRow(trx, tenant, {
    customer,
    trackId: reminder.track_id,
    obligationId: reminder.obligation_id,
    channel: 'email',
    recipient,
    // The words the customer was to get, as they were sent; a stage belongs to the reminder it stands in for.
    message: reminder.message,
    sendAt: now,
    source: reminder.source,
    stage: null,
  });
  const fallback = { ...row, fallback_of: reminder.id };
  return (await repo.insert(trx, fallback)) ? fallback : null;
}
