import type { AppContext } from '../../context.js';
import type { Trx } from '../../db/schema.js';
import { inTenant, newestFirst } from '../../db/scoping.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError } from '../../lib/app-error.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
import type { PhoneChannel } from '../../ports/phone-messages.js';
import { customerByPhone, getCustomerRow, setOptOut } from '../customers/customers.service.js';
import type { InboundMessage, InboundMessageListQuery, TestInboundMessage } from './messages.schemas.js';
import type { InboundAction, InboundMessagesTable } from './messages.table.js';

/** The standard opt-out and opt-in words (carriers' and Twilio's), matched on the whole reply. */
const OPT_OUT = new Set(['STOP', 'STOPALL', 'STOP ALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']);
const OPT_IN = new Set(['START', 'UNSTOP', 'YES']);

function actionOf(text: string): InboundAction {
  const word = text
    .trim()
    .replace(/[.!]+$/, '')
    .toUpperCase();
  if (OPT_OUT.has(word)) return 'opt_out';
  if (OPT_IN.has(word)) return 'opt_in';
  return 'none';
}

export function toApi(row: InboundMessagesTable): InboundMessage {
  return {
    id: row.id,
    customerId: row.customer_id,
    channel: row.channel,
    from: row.from_number,
    text: row.text,
    receivedAt: row.received_at,
    action: row.action,
  };
}

/**
 * A message a customer sent, in the caller's transaction: matched to the customer by phone and kept; STOP opts
 * the customer out of that channel at once (no later message goes on it, automatic or not), START opts back in.
 * Every message is evented `message.received`, with what it did.
 */
export async function receiveInbound(
  trx: Trx,
  tenant: Tenant,
  inbound: {
    channel: PhoneChannel;
    from: string;
    text: string;
    provider: string;
    providerMessageId: string | null;
  },
): Promise<InboundMessagesTable> {
  const customer = await customerByPhone(trx, tenant, inbound.from);
  const action = actionOf(inbound.text);
  if (customer && action !== 'none') {
    await setOptOut(trx, tenant, customer.id, inbound.channel, action === 'opt_out');
  }
  const at = tenant.clock.now();
  const row: InboundMessagesTable = {
    id: newId('inboundMessage', at),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    customer_id: customer?.id ?? null,
    channel: inbound.channel,
    from_number: inbound.from,
    text: inbound.text.slice(0, 1600),
    action,
    provider: inbound.provider,
    provider_message_id: inbound.providerMessageId,
    received_at: at.toISOString(),
  };
  await trx.insertInto('inbound_messages').values(row).execute();
  await recordEvent(trx, tenant, 'message.received', toApi(row));
  return row;
}

export function listInbound(
  ctx: AppContext,
  tenant: TenantRef,
  query: InboundMessageListQuery,
): Promise<Page<InboundMessage>> {
  return paginate(
    query,
    'inboundMessage',
    (limit, afterId) => {
      let q = ctx.db.selectFrom('inbound_messages').selectAll().where(inTenant(tenant));
      if (query.customerId) q = q.where('customer_id', '=', query.customerId);
      return q.$call(newestFirst(afterId, limit)).execute();
    },
    toApi,
  );
}

/** `POST /account/test-messages/inbound`: a reply as the customer would send it, in test mode only. */
export async function testInbound(
  ctx: AppContext,
  tenant: Tenant,
  input: TestInboundMessage,
): Promise<InboundMessage> {
  if (tenant.mode !== 'test') {
    throw new AppError('forbidden', 'Test replies belong to test mode; use a test key (pt_test_…).', {
      required_mode: 'test',
    });
  }
  const customer = await getCustomerRow(ctx.db, tenant, input.customerId, 'customerId');
  const row = await inTransaction(ctx, tenant, (trx) =>
    receiveInbound(trx, tenant, {
      channel: input.channel,
      from: customer.phone,
      text: input.text,
      provider: 'simulator',
      providerMessageId: null,
    }),
  );
  return toApi(row);
}
