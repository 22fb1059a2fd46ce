import type { Config } from '../config.js';
import type { Clock } from '../lib/clock.js';
import type { Mode } from '../lib/tenant.js';
import { liveAdapterOf } from './live-adapters.js';
import { liveSender } from './live-messages.js';
import type { LiveProviderAdapter, ProviderCredentials } from './live-provider.js';
import { type MessageSender, simulatedSender } from './messages.js';
import { createOutboundHttp, type OutboundHttp } from './outbound-http.js';
import {
  type ChargeRecord,
  type PaymentProvider,
  simulatedProvider,
  unavailableProvider,
} from './payment-providers.js';
import { simulatedLiveAdapter } from './simulated-live.js';
import type { SimulatorRecords } from './simulator-records.js';

/**
 * The outside world, behind interfaces on the app context. Mail, messages and payment providers are chosen by
 * the tenant's mode: test mode always gets the built-in simulators, so nothing leaves the machine. Webhook
 * deliveries go out in both modes (a test endpoint is the integrator's own receiver).
 */
export interface Ports {
  http: OutboundHttp;
  messages(mode: Mode): MessageSender;
  provider(mode: Mode, name: string): PaymentProvider;
  /** A real provider's adapter with a workspace's credentials; null for a provider this server has none for. */
  liveAdapter(name: string, credentials: ProviderCredentials): LiveProviderAdapter | null;
  /** Test mode's simulator of a real provider (no sandbox key given), on a tenant's clock. */
  simulatedLive(name: 'paystack' | 'stripe', clock: Clock): LiveProviderAdapter;
  /** What that simulator keeps; null where nothing is kept (unit tests). */
  simulatorRecords: SimulatorRecords | null;
}

/** `charges`: where the test-mode provider keeps its charges (by idempotency key); none in unit tests. */
export function createPorts(
  config: Readonly<Config>,
  charges?: ChargeRecord,
  records?: SimulatorRecords,
): Ports {
  const http = createOutboundHttp({ allowPrivate: config.webhookAllowPrivate });
  const liveMessages = liveSender(config);
  return {
    http,
    messages: (mode) => (mode === 'test' ? simulatedSender : liveMessages),
    provider: (mode, name) =>
      mode === 'test' ? simulatedProvider(name, charges, config.publicUrl) : unavailableProvider(name),
    simulatorRecords: records ?? null,
    simulatedLive: (name, clock) => {
      if (!records) throw new Error('this context keeps no simulator records');
      return simulatedLiveAdapter(name, { publicUrl: config.publicUrl, records, clock });
    },
    liveAdapter: (name, credentials) =>
      liveAdapterOf(name, credentials, { timeoutMs: config.providerTimeoutMs }),
  };
}
