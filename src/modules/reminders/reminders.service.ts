import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { enqueue } from '../../jobs/queue.js';
import { AppError, fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { toInstant } from '../../lib/instant.js';
import { formatMoney } from '../../lib/money.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import type { Channel } from '../../ports/messages.js';
import { type CustomersTable, getCustomerRow } from '../customers/customers.service.js';
import type { ReminderStage } from '../schedules/index.js';
import { findObligation } from '../schedules/index.js';
import { findTrack } from '../tracks/index.js';
import { businessCard } from '../workspaces/workspaces.service.js';
import { factsOf, loadSubject } from './reminders.facts.js';
import { sendRemindersJob } from './reminders.job.js';
import { logToApi, toApi } from './reminders.mapper.js';
import * as repo from './reminders.repository.js';
import type {
  Reminder,
  ReminderCreate,
  ReminderListQuery,
  ReminderLog,
  ReminderLogListQuery,
  ReminderSend,
  ReminderSendAccepted,
} from './reminders.schemas.js';
import type { RemindersTable } from './reminders.table.js';
import { renderReminder } from './reminders.templates.js';

/** Reminders `POST /reminders/send` without ids takes at once; the send sweep takes any left. */
const SEND_ALL_LIMIT = 1000;

/** Where a channel reaches the customer; null when the customer has no such contact. */
export function recipientOf(customer: CustomersTable, channel: Channel): string | null {
  return channel === 'email' ? customer.email : customer.phone || null;
}

/** The channel a reminder takes when none is asked: e-mail when the customer has an address, else SMS. */
export function defaultChannel(customer: CustomersTable): Channel {
  return customer.email ? 'email' : 'sms';
}

/** The plan, obligation and customer a request names, checked against each other. */
async function resolveTargets(db: DbOrTrx, tenant: TenantRef, input: ReminderCreate) {
  if (!input.customerId && !input.trackId && !input.obligationId) {
    const problem = 'give at least one of customerId, trackId and obligationId';
    throw fieldError({ customerId: problem, trackId: problem, obligationId: problem });
  }
  const obligation = input.obligationId ? await findObligation(db, tenant, input.obligationId) : undefined;
  if (input.obligationId && !obligation) throw notFound('obligation', input.obligationId, 'obligationId');
  if (input.trackId && obligation && obligation.track_id !== input.trackId) {
    throw fieldError({ trackId: 'must be the plan of the obligation' });
  }
  const trackId = input.trackId ?? obligation?.track_id ?? null;
  const track = trackId ? await findTrack(db, tenant, trackId) : undefined;
  if (trackId && !track) throw notFound('track', trackId, 'trackId');
  if (input.customerId && track && track.customer_id !== input.customerId) {
    throw fieldError({ customerId: 'must be the customer of the plan' });
  }
  const customerId = track?.customer_id ?? input.customerId;
  if (!customerId) throw fieldError({ customerId: 'is required for an obligation without a plan' });
  const customer = await getCustomerRow(db, tenant, customerId, 'customerId');
  if (customer.status === 'archived') throw invalidState('customer', customer.status, 'remind');
  if (track?.status === 'archived') throw invalidState('track', track.status, 'remind');
  return { customer, trackId: track?.id ?? null, obligationId: obligation?.id ?? null };
}

/** A reminder row, its text written from the template (or as given) for what it is about as it stands. */
export async function reminderRow(
  db: DbOrTrx,
  tenant: Tenant,
  target: {
    customer: CustomersTable;
    trackId: string | null;
    obligationId: string | null;
    channel: Channel;
    recipient: string;
    message: string | null;
    sendAt: string;
    source: RemindersTable['source'];
    stage: ReminderStage | null;
    paymentId?: string | null;
    portalLinkId?: string | null;
    subject?: string;
  },
): Promise<RemindersTable> {
  const at = tenant.clock.now();
  const subject = await loadSubject(db, tenant, {
    customerId: target.customer.id,
    trackId: target.trackId,
    obligationId: target.obligationId,
  });
  const written =
    target.message === null ? renderReminder(target.stage, target.channel, factsOf(subject)) : null;
  return {
    id: newId('reminder', at),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    customer_id: target.customer.id,
    track_id: target.trackId,
    obligation_id: target.obligationId,
    channel: target.channel,
    recipient: target.recipient,
    subject:
      target.channel !== 'email'
        ? null
        : (written?.subject ?? target.subject ?? `${subject.workspace.name}: a message about your account`),
    message: written?.text ?? (target.message as string),
    templated: written ? 1 : 0,
    status: 'queued',
    skip_reason: null,
    send_at: target.sendAt,
    next_try_at: target.sendAt,
    claimed_until: null,
    sent_at: null,
    attempts: 0,
    last_error: null,
    source: target.source,
    stage: target.stage,
    fallback_of: null,
    payment_id: target.paymentId ?? null,
    portal_link_id: target.portalLinkId ?? null,
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
  };
}

/**
 * A queued reminder, in the caller's transaction, sent at `sendAt` (now by default) by the worker. `portalLinkId`:
 * the customer page link its text carries (`CUSTOMER_PAGE_LINK`), given its token when it is sent.
 */
export async function queueReminder(
  trx: DbOrTrx,
  tenant: Tenant,
  input: ReminderCreate,
  extra: { portalLinkId?: string } = {},
): Promise<Reminder> {
  const sendAt = input.sendAt ? toInstant(input.sendAt, 'sendAt') : tenant.clock.now().toISOString();
  const { customer, trackId, obligationId } = await resolveTargets(trx, tenant, input);
  const channel = input.channel ?? defaultChannel(customer);
  const recipient = recipientOf(customer, channel);
  if (!recipient) {
    throw fieldError({
      channel: `the customer has no ${channel === 'email' ? 'e-mail address' : 'phone number'} for ${channel}`,
    });
  }
  const row = await reminderRow(trx, tenant, {
    customer,
    trackId,
    obligationId,
    channel,
    recipient,
    message: input.message ?? null,
    sendAt,
    source: 'api',
    stage: null,
    portalLinkId: extra.portalLinkId ?? null,
  });
  await repo.insert(trx, row);
  return toApi(row);
}

/** `POST /reminders`: a queued reminder, sent at `sendAt` (now by default) by the worker. */
export function createReminder(ctx: AppContext, tenant: Tenant, input: ReminderCreate): Promise<Reminder> {
  return inTransaction(ctx, tenant, (trx) => queueReminder(trx, tenant, input));
}

export function listReminders(
  ctx: AppContext,
  tenant: TenantRef,
  query: ReminderListQuery,
): Promise<Page<Reminder>> {
  return paginate(
    query,
    'reminder',
    (limit, afterId) => repo.list(ctx.db, tenant, { ...query, limit }, afterId),
    toApi,
  );
}

export function listReminderLogs(
  ctx: AppContext,
  tenant: TenantRef,
  query: ReminderLogListQuery,
): Promise<Page<ReminderLog>> {
  return paginate(
    query,
    'reminderLog',
    (limit, afterId) => repo.listLogs(ctx.db, tenant, { ...query, limit }, afterId),
    logToApi,
  );
}

/**
 * `POST /reminders/send`: the named queued reminders (whatever their sendAt), or every queued one that is due,
 * are made due now and handed to the worker at once. Names that are not this workspace's reminders, or not
 * queued, are refused and nothing changes.
 */
export async function sendReminders(
  ctx: AppContext,
  tenant: Tenant,
  input: ReminderSend,
): Promise<ReminderSendAccepted> {
  const now = tenant.clock.now().toISOString();
  return inTransaction(ctx, tenant, async (trx) => {
    let ids: string[];
    if (input.reminderIds) {
      const found = await repo.findMany(trx, tenant, input.reminderIds);
      const unknown = input.reminderIds.filter((id) => !found.some((row) => row.id === id));
      if (unknown.length > 0) {
        throw fieldError({ reminderIds: `no such reminder in this workspace: ${unknown.join(', ')}` });
      }
      const closed = found.find((row) => row.status !== 'queued');
      if (closed) {
        throw new AppError('invalid_state', `Cannot send reminder ${closed.id}: it is ${closed.status}.`, {
          status: closed.status,
          action: 'send',
          reminderId: closed.id,
        });
      }
      ids = input.reminderIds;
    } else {
      ids = (await repo.dueOfTenant(trx, tenant, now, SEND_ALL_LIMIT)).map((row) => row.id);
    }
    for (const id of ids) await repo.updateIn(trx, id, ['queued'], { next_try_at: now, updated_at: now });
    if (ids.length > 0) {
      await enqueue(trx, ctx.clock, sendRemindersJob, {
        workspaceId: tenant.workspaceId,
        mode: tenant.mode,
        reminderIds: ids,
      });
    }
    return { queued: ids.length, reminderIds: ids };
  });
}

/**
 * An automatic payment the provider would not take without the payer (`authentication_required`): a reminder
 * goes at once, with a link to pay the obligation (or, without one, a request to get in touch), instead of a
 * retry the payer would never see.
 */
export async function remindToConfirmPayment(
  ctx: AppContext,
  tenant: Tenant,
  target: {
    customerId: string;
    trackId: string | null;
    obligationId: string;
    amount: number;
    currency: string;
    provider: string;
    payLink: string | null;
  },
): Promise<Reminder | null> {
  return inTransaction(ctx, tenant, async (trx) => {
    const customer = await getCustomerRow(trx, tenant, target.customerId);
    const channel = defaultChannel(customer);
    const recipient = recipientOf(customer, channel);
    if (!recipient || customer.status === 'archived') return null;
    const business = await businessCard(trx, tenant.workspaceId);
    const owed = formatMoney(target.amount, target.currency);
    const how = target.payLink ? `Pay here: ${target.payLink}` : `Please contact ${business.name} to pay.`;
    const row = await reminderRow(trx, tenant, {
      customer,
      trackId: target.trackId,
      obligationId: target.obligationId,
      channel,
      recipient,
      message: `${business.name}: your payment of ${owed} could not be taken automatically, because ${target.provider} needs you to confirm it. ${how}`,
      sendAt: tenant.clock.now().toISOString(),
      source: 'schedule',
      stage: null,
    });
    await repo.insert(trx, row);
    return toApi(row);
  });
}
