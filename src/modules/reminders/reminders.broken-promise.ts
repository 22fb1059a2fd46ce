import type { DbOrTrx } from '../../db/schema.js';
import { localDate } from '../../lib/calendar.js';
import { briefDayInWords } from '../../lib/in-words.js';
import { formatMoney } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import { getCustomerRow } from '../customers/customers.service.js';
import { dueOfPlan, findObligation } from '../schedules/index.js';
import { findTrack } from '../tracks/index.js';
import { businessCard } from '../workspaces/workspaces.service.js';
import { toApi } from './reminders.mapper.js';
import * as repo from './reminders.repository.js';
import type { Reminder } from './reminders.schemas.js';
import { defaultChannel, recipientOf, reminderRow } from './reminders.service.js';

/** A broken promise to pay, as its reminder needs it. */
export interface BrokenPromise {
  customerId: string;
  trackId: string;
  obligationId: string | null;
  amount: number;
  currency: string;
  /** `YYYY-MM-DD`: the day it was to be paid by. */
  date: string;
}

/** What is owed now on what the promise covered, in words. */
async function owedNow(db: DbOrTrx, tenant: Tenant, promise: BrokenPromise, timeZone: string) {
  const money = (amount: number) => formatMoney(amount, promise.currency);
  const plan = await findTrack(db, tenant, promise.trackId);
  const obligation = promise.obligationId
    ? await findObligation(db, tenant, promise.obligationId)
    : undefined;
  const what = plan ? ` for ${plan.title}` : '';
  if (obligation) return `${money(obligation.amount - obligation.amount_paid)}${what} is owed now.`;
  if (!plan) return '';
  const { dueNow } = await dueOfPlan(db, plan.id, localDate(tenant.clock.now(), timeZone));
  const due = dueNow > 0 && dueNow < plan.balance ? `, ${money(dueNow)} of it due now` : '';
  return `${money(plan.balance)}${what} is owed now${due}.`;
}

/**
 * The one reminder a broken promise to pay sends (source `schedule`, sent by the send sweep as soon as it may
 * be): it says the promise of AMOUNT by DATE was not kept and what is owed now. The schedule's own stages go on
 * as they would have; the ones skipped while the promise was open are not sent again. Null when the customer
 * cannot be reached or is archived.
 */
export async function remindOfBrokenPromise(
  trx: DbOrTrx,
  tenant: Tenant,
  promise: BrokenPromise,
): Promise<Reminder | null> {
  const customer = await getCustomerRow(trx, tenant, promise.customerId);
  const channel = defaultChannel(customer);
  const recipient = recipientOf(customer, channel);
  if (!recipient || customer.status === 'archived') return null;
  const business = await businessCard(trx, tenant.workspaceId);
  const promised = `${formatMoney(promise.amount, promise.currency)} by ${briefDayInWords(promise.date)}`;
  const owed = await owedNow(trx, tenant, promise, business.timeZone);
  const row = await reminderRow(trx, tenant, {
    customer,
    trackId: promise.trackId,
    obligationId: promise.obligationId,
    channel,
    recipient,
    message: `${business.name}: Hello ${customer.name}, your promise to pay ${promised} was not kept. ${owed} Please pay as soon as you can, or tell us if something is wrong.`,
    subject: `${business.name}: your promise to pay ${promised} was not kept`,
    sendAt: tenant.clock.now().toISOString(),
    source: 'schedule',
    stage: null,
  });
  await repo.insert(trx, row);
  return toApi(row);
}
