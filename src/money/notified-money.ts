import { toInstant } from '../lib/instant.js';
import type { InboundNotification } from '../ports/provider-notifications.js';
import type { ProviderMoney } from './receive.js';

/** The money a provider's notification reports, keyed by its id (the provider's), so that it is recorded once. */
export function moneyOfNotification(
  provider: string,
  notification: InboundNotification,
  method: ProviderMoney['method'],
  metadata: Record<string, string>,
): ProviderMoney {
  return {
    amount: notification.amount,
    currency: notification.currency,
    method,
    paidAt: toInstant(notification.occurred_at, 'occurred_at'),
    reference: `${provider}:${notification.id}`,
    metadata: { notificationId: notification.id, ...metadata },
    provider,
    providerReference: notification.provider_reference ?? null,
  };
}
