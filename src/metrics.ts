import { Counter, Registry } from 'prom-client';

/** Prometheus metrics of one app: its own registry, so several apps can live in one process. */
export interface Metrics {
  registry: Registry;
  /** Webhook delivery attempts made by this process, by outcome. */
  deliveryAttempts: Counter<'status'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const deliveryAttempts = new Counter({
    name: 'paytrack_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome.',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  for (const status of ['succeeded', 'failed']) deliveryAttempts.inc({ status }, 0);
  return { registry, deliveryAttempts };
}
