import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { Counter, collectDefaultMetrics, Gauge, Histogram } from 'prom-client';
import type { AppContext } from '../context.js';
import { AppError } from '../lib/app-error.js';
import { sendError } from './errors.js';

function bearerMatches(request: FastifyRequest, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  const presented = Buffer.from(match?.[1] ?? '');
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** The job queue and the outbox as the database has them, read when Prometheus scrapes. */
function registerQueueGauges(ctx: AppContext): void {
  const registers = [ctx.metrics.registry];
  new Gauge({
    name: 'paytrack_jobs',
    help: 'Background jobs by status and name (done jobs are not kept).',
    labelNames: ['status', 'name'] as const,
    registers,
    async collect() {
      this.reset();
      // Every known job shows, at 0 when none is queued, so dashboards and alerts have a series to read.
      for (const name of ctx.registry.jobs.keys()) {
        for (const status of ['pending', 'running', 'failed']) this.set({ status, name }, 0);
      }
      const rows = await ctx.db
        .selectFrom('jobs')
        .select(['status', 'name', sql<number>`count(*)`.as('n')])
        .groupBy(['status', 'name'])
        .execute();
      for (const row of rows) this.set({ status: row.status, name: row.name }, Number(row.n));
    },
  });
  new Gauge({
    name: 'paytrack_job_oldest_due_seconds',
    help: 'How long the oldest due pending job has been waiting: the queue lag.',
    registers,
    async collect() {
      const now = ctx.clock.now();
      const row = await ctx.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.min('run_at').as('oldest'))
        .where('status', '=', 'pending')
        .where('run_at', '<=', now.toISOString())
        .executeTakeFirst();
      this.set(row?.oldest ? Math.max(0, (now.getTime() - Date.parse(String(row.oldest))) / 1000) : 0);
    },
  });
  new Gauge({
    name: 'paytrack_events_undispatched',
    help: 'Events written to the outbox and not yet handed to their subscribers.',
    registers,
    async collect() {
      const row = await ctx.db
        .selectFrom('events')
        .select(sql<number>`count(*)`.as('n'))
        .where('dispatched_at', 'is', null)
        .executeTakeFirst();
      this.set(Number(row?.n ?? 0));
    },
  });
}

/** Prometheus metrics at `/metrics`, behind `Authorization: Bearer <METRICS_TOKEN>` when it is set. */
export function registerMetrics(app: FastifyInstance, ctx: AppContext): void {
  const { registry } = ctx.metrics;
  collectDefaultMetrics({ register: registry });
  registerQueueGauges(ctx);
  const requests = new Counter({
    name: 'paytrack_http_requests_total',
    help: 'HTTP requests answered, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'paytrack_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method and route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  app.get('/metrics', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    const token = ctx.config.metricsToken;
    if (token !== undefined && !bearerMatches(request, token)) {
      return sendError(
        request,
        reply,
        new AppError('unauthorized', 'Send "Authorization: Bearer <METRICS_TOKEN>".'),
      );
    }
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
