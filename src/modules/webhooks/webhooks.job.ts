import { performance } from 'node:perf_hooks';
import { Type } from 'typebox';
import { defineJob, type JobContext } from '../../jobs/job.js';
import { newId } from '../../lib/ids.js';
import type { EventsTable } from '../../outbox/events.table.js';
import { eventToApi } from '../../outbox/outbox.js';
import type { HttpOutcome } from '../../ports/outbound-http.js';
import { signatureHeaders } from './signing.js';
import * as repo from './webhooks.repository.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './webhooks.table.js';

const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_ERROR_CHARS = 500;

/** Waits after each failed attempt: about 72 hours in all, then the delivery is given up. */
export const DELIVERY_BACKOFF_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  20 * 3_600_000,
] as const;

export function deliveryBackoffMs(attempt: number): number {
  return DELIVERY_BACKOFF_MS[Math.min(Math.max(attempt, 1), DELIVERY_BACKOFF_MS.length) - 1] ?? 0;
}

/** Deliveries to one endpoint at once: a slow or failing endpoint holds at most this many of a worker's slots. */
export const ENDPOINT_CONCURRENCY = 64;

async function send(
  ctx: JobContext,
  endpoint: Pick<WebhookEndpointsTable, 'url' | 'secret'>,
  event: EventsTable,
  attemptedAt: Date,
): Promise<HttpOutcome> {
  const check = await ctx.ports.http.checkUrl(endpoint.url);
  if (!check.ok) return { ok: false, status: null, error: check.reason };
  const body = JSON.stringify(eventToApi(event));
  return ctx.ports.http.post(
    endpoint.url,
    {
      'content-type': 'application/json',
      'user-agent': 'paytrack-webhooks/1',
      ...signatureHeaders(endpoint.secret, event.id, attemptedAt, body),
    },
    body,
    { timeoutMs: DELIVERY_TIMEOUT_MS, signal: ctx.signal },
  );
}

type Delivery = NonNullable<Awaited<ReturnType<typeof repo.findDeliveries>>[number]>;

const DeliveryPayload = Type.Object({
  eventId: Type.String({ minLength: 1 }),
  endpointId: Type.String({ minLength: 1 }),
});

/**
 * One delivery attempt of one event to one endpoint. The attempt's row is written with the job's outcome;
 * an attempt cut off by a dead worker is logged by the run that takes it over, as an outcome not known.
 */
export const deliverWebhookJob = defineJob<
  typeof DeliveryPayload,
  WebhookDeliveriesTable,
  Delivery | undefined
>({
  name: 'webhooks.deliver',
  payload: DeliveryPayload,
  maxAttempts: DELIVERY_BACKOFF_MS.length + 1,
  backoffMs: deliveryBackoffMs,
  group: ({ endpointId }) => `webhook:${endpointId}`,
  groupConcurrency: ENDPOINT_CONCURRENCY,
  load: (ctx, payloads) => repo.findDeliveries(ctx.db, payloads),
  async run(ctx, _payload, job, found) {
    // A disabled (or vanished) endpoint gets nothing more, pending retries included.
    if (found?.endpoint.status !== 'enabled') return undefined;
    const { endpoint, event } = found;

    const row = (
      attemptNumber: number,
      at: Date,
      fields: Partial<WebhookDeliveriesTable>,
    ): WebhookDeliveriesTable => ({
      id: newId('webhookDelivery', at),
      workspace_id: event.workspace_id,
      mode: event.mode,
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: event.type,
      attempt_number: attemptNumber,
      status: 'failed',
      response_status: null,
      error: null,
      duration_ms: 0,
      attempted_at: at.toISOString(),
      next_attempt_at: null,
      ...fields,
    });
    const rows: WebhookDeliveriesTable[] = [];
    if (job.previousRunLost && job.attempt > 1) {
      rows.push(
        row(job.attempt - 1, ctx.clock.now(), {
          error: 'outcome unknown: the worker stopped during the attempt; it may have reached the endpoint',
        }),
      );
    }

    const attemptedAt = ctx.clock.now();
    const started = performance.now();
    const outcome = await send(ctx, endpoint, event, attemptedAt);
    const durationMs = Math.round(performance.now() - started);
    ctx.metrics.deliveryAttempts.inc({ status: outcome.ok ? 'succeeded' : 'failed' });
    const retries = !outcome.ok && job.attempt < job.maxAttempts;
    const retryAt = retries
      ? new Date(ctx.clock.now().getTime() + deliveryBackoffMs(job.attempt))
      : undefined;
    rows.push(
      row(job.attempt, attemptedAt, {
        status: outcome.ok ? 'succeeded' : 'failed',
        response_status: outcome.status,
        error: outcome.error === null ? null : outcome.error.slice(0, MAX_ERROR_CHARS),
        duration_ms: durationMs,
        next_attempt_at: retryAt ? retryAt.toISOString() : null,
      }),
    );
    return {
      ...(outcome.ok ? {} : { error: `delivery to ${endpoint.id} failed: ${outcome.error ?? 'unknown'}` }),
      ...(retryAt ? { retryAt } : {}),
      records: rows,
    };
  },
  writeRecords: (trx, rows) => repo.insertDeliveries(trx, rows),
});
