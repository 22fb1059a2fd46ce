import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError, notFound } from '../../lib/app-error.js';
import { CallbackSignatureError, type RawCallback } from '../../ports/phone-messages.js';
import { deliveryReported } from '../reminders/index.js';
import { receiveInbound } from './inbound.service.js';
import type { CallbackReceipt } from './messages.schemas.js';
import { findMessageSettingById, messageAdapterOf } from './settings.service.js';

const SETTING_ID = /^mst_[0-9A-Z]{26}$/;

/**
 * A message provider's callback at `POST /api/v1/message-callbacks/{settingId}`: checked by the provider's own
 * means before anything is read (Twilio's signature, Africa's Talking's token), then each event acted on once by
 * its id, in its own transaction with the row that keeps it: a delivery receipt moves the reminder's log row, an
 * inbound message is kept (STOP and START act at once).
 */
export async function receiveCallback(
  ctx: AppContext,
  settingId: string,
  raw: RawCallback,
): Promise<CallbackReceipt> {
  const setting = SETTING_ID.test(settingId) ? await findMessageSettingById(ctx.db, settingId) : undefined;
  if (!setting) throw notFound('message setting', settingId.slice(0, 64));
  let events: ReturnType<ReturnType<typeof messageAdapterOf>['parseCallback']>;
  try {
    events = messageAdapterOf(ctx, setting).parseCallback(raw, setting.callback_token);
  } catch (error) {
    if (error instanceof CallbackSignatureError) throw new AppError('unauthorized', error.message);
    throw error;
  }
  const tenant = await loadTenant(ctx.db, ctx.clock, {
    workspaceId: setting.workspace_id,
    mode: setting.mode,
  });
  const receipts: CallbackReceipt['events'] = [];
  for (const event of events) {
    receipts.push(
      await inTransaction(ctx, null, async (trx) => {
        const kept = await trx
          .insertInto('message_callback_events')
          .values({
            setting_id: setting.id,
            event_id: event.eventId,
            outcome: 'received',
            received_at: tenant.clock.now().toISOString(),
          })
          .onConflict((oc) => oc.columns(['setting_id', 'event_id']).doNothing())
          .executeTakeFirst();
        if (Number(kept.numInsertedOrUpdatedRows ?? 0) === 0)
          return { id: event.eventId, outcome: 'duplicate' };
        let outcome: string;
        if (event.kind === 'status') {
          outcome = await deliveryReported(trx, tenant, {
            provider: setting.provider,
            providerMessageId: event.providerMessageId,
            status: event.status,
            errorCode: event.errorCode,
          });
        } else if (event.kind === 'inbound') {
          outcome = (
            await receiveInbound(trx, tenant, {
              channel: event.channel,
              from: event.from,
              text: event.text,
              provider: setting.provider,
              providerMessageId: event.providerMessageId,
            })
          ).action;
        } else {
          outcome = 'ignored';
        }
        await trx
          .updateTable('message_callback_events')
          .set({ outcome })
          .where('setting_id', '=', setting.id)
          .where('event_id', '=', event.eventId)
          .execute();
        return { id: event.eventId, outcome };
      }),
    );
  }
  return { events: receipts };
}
