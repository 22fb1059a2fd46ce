import type { Trx } from '../../db/schema.js';
import type { Tenant } from '../../lib/tenant.js';
import {
  type Destination,
  moneyOfNotification,
  type Received,
  receiveProviderMoney,
} from '../../money/index.js';
import type { InboundNotification } from '../../ports/provider-notifications.js';
import { mandateForCollection } from '../mandates/mandates.service.js';
import { virtualAccountTarget } from '../schedules/schedules.service.js';

/** Where a transfer to a virtual account goes: the plan of the schedule that has it, or that schedule (and its payer). */
async function transferDestination(
  trx: Trx,
  tenant: Tenant,
  provider: string,
  accountNumber: string,
): Promise<Destination> {
  const target = await virtualAccountTarget(trx, tenant, provider, accountNumber);
  if (target === null || 'trackId' in target) return target;
  const mandate = await mandateForCollection(trx, tenant, target.scheduleId);
  return { scheduleId: target.scheduleId, customerId: mandate?.payer_id ?? null };
}

/** `transfer.received`: a transfer to a schedule's virtual account, recorded as all money a provider reports is. */
export async function receiveTransfer(
  trx: Trx,
  tenant: Tenant,
  provider: string,
  notification: InboundNotification,
): Promise<Received> {
  const money = moneyOfNotification(provider, notification, 'virtual_account', {
    virtualAccount: notification.reference,
  });
  return receiveProviderMoney(
    trx,
    tenant,
    money,
    await transferDestination(trx, tenant, provider, notification.reference),
  );
}
