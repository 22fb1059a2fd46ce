import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import type { Trx } from '../../db/schema.js';
import { enqueue } from '../../jobs/queue.js';
import { localDate } from '../../lib/calendar.js';
import { dayInWords } from '../../lib/in-words.js';
import { formatMoney } from '../../lib/money.js';
import { receiptSettingsOf } from '../../lib/receipt-settings.js';
import type { EventsTable } from '../../outbox/events.table.js';
import type { EventSubscriber } from '../../outbox/relay.js';
import { type CustomersTable, customerRowById, optOutsOf } from '../customers/customers.service.js';
import { findTrack } from '../tracks/index.js';
import { workspaceRow } from '../workspaces/workspaces.service.js';
import { sendRemindersJob } from './reminders.job.js';
import * as repo from './reminders.repository.js';
import { recipientOf, reminderRow } from './reminders.service.js';

/** What a `payment.recorded` event carries that a receipt message needs. */
interface RecordedPayment {
  id: string;
  customerId: string | null;
  trackId: string | null;
  amount: number;
  currency: string;
  paidAt: string;
  balanceAfter: number | null;
  receipt: { number: string; url: string } | null;
}

/** The first of the workspace's receipt channels the customer can be reached on and has not opted out of. */
function channelFor(customer: CustomersTable, channels: readonly ('sms' | 'whatsapp' | 'email')[]) {
  const optedOut = optOutsOf(customer);
  for (const channel of channels) {
    const to = recipientOf(customer, channel);
    if (to && !optedOut.includes(channel)) return { channel, to };
  }
  return null;
}

type WorkspaceOf = (id: string) => ReturnType<typeof workspaceRow>;

async function queueReceipt(trx: Trx, ctx: AppContext, event: EventsTable, workspaceOf: WorkspaceOf) {
  const payment = JSON.parse(event.data) as RecordedPayment;
  if (!payment.receipt || !payment.customerId) return;
  const workspace = await workspaceOf(event.workspace_id);
  const settings = receiptSettingsOf(workspace?.receipt_settings ?? null);
  if (!workspace || !settings.send) return;
  const customer = await customerRowById(trx, payment.customerId);
  if (customer?.status !== 'active') return;
  const route = channelFor(customer, settings.channels);
  if (!route) return;
  const tenant = { workspaceId: event.workspace_id, mode: event.mode };
  const plan = payment.trackId ? await findTrack(trx, tenant, payment.trackId) : undefined;
  const money = (amount: number) => formatMoney(amount, payment.currency);
  const paidOn = dayInWords(localDate(payment.paidAt, workspace.timezone));
  const what = plan ? ` for ${plan.title}` : '';
  const left = payment.balanceAfter === null ? '' : ` Left to pay: ${money(payment.balanceAfter)}.`;
  const message = `${workspace.name}: receipt ${payment.receipt.number}. ${money(payment.amount)} received on ${paidOn}${what}.${left} Check it: ${payment.receipt.url}`;
  const withClock = await loadTenant(trx, ctx.clock, tenant);
  const row = await reminderRow(trx, withClock, {
    customer,
    trackId: plan?.id ?? null,
    obligationId: null,
    channel: route.channel,
    recipient: route.to,
    message,
    subject: `Receipt ${payment.receipt.number} from ${workspace.name}`,
    sendAt: withClock.clock.now().toISOString(),
    source: 'receipt',
    stage: null,
    paymentId: payment.id,
  });
  await repo.insert(trx, row);
  // At once, not at the sweep's next pass: the payer is often still at the counter.
  await enqueue(trx, ctx.clock, sendRemindersJob, { ...tenant, reminderIds: [row.id] });
}

/**
 * Sends each new receipt to its customer when the workspace's `receipts.send` is on: a reminder of source
 * `receipt`, queued for now on the first of `receipts.channels` the customer can be reached on, delivered and
 * logged as every reminder is (an e-mail attaches the receipt's PDF).
 */
export const receiptMessages: EventSubscriber = {
  name: 'receipt-messages',
  async handle(trx, ctx, events) {
    // Read once per batch: a batch holds up to 200 payments, mostly of a few workspaces.
    const workspaces = new Map<string, ReturnType<typeof workspaceRow>>();
    const workspaceOf: WorkspaceOf = (id) => {
      let row = workspaces.get(id);
      if (!row) {
        row = workspaceRow(trx, id);
        workspaces.set(id, row);
      }
      return row;
    };
    for (const event of events) {
      if (event.type === 'payment.recorded') await queueReceipt(trx, ctx, event, workspaceOf);
    }
  },
};
