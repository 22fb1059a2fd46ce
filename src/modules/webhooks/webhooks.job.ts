import { performance } from 'node:perf_hooks';
import { Agent, type Dispatcher, request } from 'undici';
import { defineJob, exponentialBackoff, type JobContext, type RunningJob } from '../../jobs/job.js';
import { enqueue } from '../../jobs/queue.js';
import { newId } from '../../lib/ids.js';
import { eventToApi } from '../events/events.service.js';
import type { EventsTable } from '../events/events.table.js';
import { signatureHeaders } from './signing.js';
import { checkWebhookUrl, guardedLookup } from './url-guard.js';
import * as repo from './webhooks.repository.js';
import { parseEventTypes, subscribes } from './webhooks.service.js';
import type { WebhookEndpointsTable } from './webhooks.table.js';

const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_DRAINED_BYTES = 64 * 1024;
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

/** Sockets re-check every resolved address at connect time, against DNS rebinding after the URL check. */
const guardedAgent = new Agent({ connect: { lookup: guardedLookup } });
const openAgent = new Agent();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(payload: Record<string, unknown>, key: string): string {
  const value = payload[key];
  if (typeof value !== 'string' || value === '') throw new Error(`payload.${key} must be a non-empty string`);
  return value;
}

export interface DispatchPayload {
  eventId: string;
  endpointId?: string;
}

/** Fans an outbox event out to one delivery job per subscribed endpoint; running it again adds nothing. */
export const dispatchEventJob = defineJob<DispatchPayload>({
  maxAttempts: 5,
  backoffMs: exponentialBackoff,
  parse(payload) {
    if (!isRecord(payload)) throw new Error('payload must be an object');
    const eventId = requireString(payload, 'eventId');
    return payload.endpointId === undefined
      ? { eventId }
      : { eventId, endpointId: requireString(payload, 'endpointId') };
  },
  async run(ctx, { eventId, endpointId }) {
    const event = await repo.findEvent(ctx.db, eventId);
    if (!event) return;
    const tenant = { workspaceId: event.workspace_id, mode: event.mode };
    const endpoints = await repo.enabledEndpoints(ctx.db, tenant, endpointId);
    const targets = endpointId
      ? endpoints
      : endpoints.filter((endpoint) => subscribes(parseEventTypes(endpoint.event_types), event.type));
    if (targets.length === 0) return;
    await ctx.db.transaction().execute(async (trx) => {
      for (const endpoint of targets) {
        await enqueue(
          trx,
          ctx.clock,
          'webhooks.deliver',
          { eventId, endpointId: endpoint.id },
          { dedupeKey: `deliver:${eventId}:${endpoint.id}` },
        );
      }
    });
  },
});

export interface DeliverPayload {
  eventId: string;
  endpointId: string;
}

interface AttemptOutcome {
  ok: boolean;
  responseStatus: number | null;
  error: string | null;
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `timeout: no response within ${DELIVERY_TIMEOUT_MS / 1000} s`;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EBLOCKEDADDRESS') return 'blocked_address';
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

async function post(
  endpoint: WebhookEndpointsTable,
  event: EventsTable,
  attemptedAt: Date,
  dispatcher: Dispatcher,
): Promise<AttemptOutcome> {
  const body = JSON.stringify(eventToApi(event));
  try {
    const response = await request(endpoint.url, {
      method: 'POST',
      dispatcher,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'paytrack-webhooks/1',
        ...signatureHeaders(endpoint.secret, event.id, attemptedAt, body),
      },
      body,
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    // Only drained, so the connection can be reused; what the receiver says is not kept.
    await response.body.dump({ limit: MAX_DRAINED_BYTES }).catch(() => undefined);
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return { ok, responseStatus: response.statusCode, error: ok ? null : `HTTP ${response.statusCode}` };
  } catch (error) {
    return { ok: false, responseStatus: null, error: describeFailure(error) };
  }
}

async function attempt(
  ctx: JobContext,
  endpoint: WebhookEndpointsTable,
  event: EventsTable,
  attemptedAt: Date,
): Promise<AttemptOutcome> {
  const allowPrivate = ctx.config.webhookAllowPrivate;
  const check = await checkWebhookUrl(endpoint.url, { allowPrivate });
  if (!check.ok) return { ok: false, responseStatus: null, error: check.reason };
  return post(endpoint, event, attemptedAt, allowPrivate ? openAgent : guardedAgent);
}

/** One delivery attempt of one event to one endpoint, recorded as a row whatever its outcome. */
export const deliverWebhookJob = defineJob<DeliverPayload>({
  maxAttempts: DELIVERY_BACKOFF_MS.length + 1,
  backoffMs: deliveryBackoffMs,
  parse(payload) {
    if (!isRecord(payload)) throw new Error('payload must be an object');
    return { eventId: requireString(payload, 'eventId'), endpointId: requireString(payload, 'endpointId') };
  },
  async run(ctx, { eventId, endpointId }, job: RunningJob) {
    const endpoint = await repo.findEndpointById(ctx.db, endpointId);
    // A disabled (or vanished) endpoint gets nothing more, pending retries included.
    if (endpoint?.status !== 'enabled') return;
    const event = await repo.findEvent(ctx.db, eventId);
    if (!event || event.workspace_id !== endpoint.workspace_id || event.mode !== endpoint.mode) return;

    const attemptedAt = ctx.clock.now();
    const started = performance.now();
    const outcome = await attempt(ctx, endpoint, event, attemptedAt);
    const durationMs = Math.round(performance.now() - started);
    const retries = !outcome.ok && job.attempt < job.maxAttempts;
    const nextAttemptAt = retries
      ? new Date(ctx.clock.now().getTime() + deliveryBackoffMs(job.attempt))
      : null;

    await repo.insertDelivery(ctx.db, {
      id: newId('webhookDelivery'),
      workspace_id: endpoint.workspace_id,
      mode: endpoint.mode,
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: event.type,
      attempt_number: job.attempt,
      status: outcome.ok ? 'succeeded' : 'failed',
      response_status: outcome.responseStatus,
      error: outcome.error === null ? null : outcome.error.slice(0, MAX_ERROR_CHARS),
      duration_ms: durationMs,
      attempted_at: attemptedAt.toISOString(),
      next_attempt_at: nextAttemptAt ? nextAttemptAt.toISOString() : null,
    });
    if (!outcome.ok) {
      throw new Error(`webhook delivery ${event.id} to ${endpoint.id} failed: ${outcome.error ?? 'unknown'}`);
    }
  },
});
