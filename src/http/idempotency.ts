import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../context.js';
import type { Trx } from '../db/schema.js';
import { type CommitHook, withCommitHook } from '../db/unit-of-work.js';
import { AppError } from '../lib/app-error.js';
import { canonicalJson } from '../lib/canonical-json.js';
import type { AuthContext } from '../modules/api-keys/api-keys.service.js';
import * as repo from './idempotency.repository.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

interface PendingKey {
  ref: repo.KeyRef;
  hash: string;
  auth: AuthContext;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: PendingKey | null;
  }
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonicalJson(request.body ?? {})}`)
    .digest('hex');
}

/** Another request with the same key committed first: this one's change is rolled back and the first replayed. */
class KeyTaken extends Error {}

/**
 * Writes the response under its key in the transaction of the request's change, just before it commits: after
 * a crash the key holds either nothing (the change did not happen; the re-sent request runs) or the whole
 * response. Only successes are kept.
 */
class KeepResponse implements CommitHook {
  private fired = false;
  /** The serialized response as kept, once written. */
  kept: string | null = null;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly pending: PendingKey,
  ) {}

  async beforeCommit(trx: Trx, result: unknown): Promise<void> {
    if (this.fired) return;
    this.fired = true;
    await this.keep(trx, result);
  }

  /** For a request that changed nothing through a unit of work: the response is kept on its own. */
  async keepAlone(db: Parameters<typeof repo.save>[0], data: unknown): Promise<void> {
    if (this.fired) return;
    this.fired = true;
    await this.keep(db, data);
  }

  private async keep(db: Parameters<typeof repo.save>[0], data: unknown): Promise<void> {
    const status = this.reply.statusCode;
    if (status >= 300) return;
    const body = this.reply.serialize({ success: true, data, request_id: this.request.id }) as string;
    const now = this.pending.auth.clock.now();
    const saved = await repo.save(db, {
      workspace_id: this.pending.ref.workspaceId,
      mode: this.pending.ref.mode,
      idem_key: this.pending.ref.key,
      request_hash: this.pending.hash,
      status: 'completed',
      response_status: status,
      response_body: body,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
    });
    if (!saved) throw new KeyTaken();
    this.kept = body;
  }
}

const inUse = () =>
  new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed.');

/** Answers from the record kept under the key: the first response again, or a refusal. */
async function answerFromRecord(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  pending: PendingKey,
): Promise<FastifyReply | undefined> {
  const existing = await repo.find(ctx.db, pending.ref);
  if (!existing || existing.expires_at <= pending.auth.clock.now().toISOString()) return undefined;
  if (existing.request_hash !== pending.hash) {
    throw new AppError(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
    );
  }
  if (existing.response_status === null || existing.response_body === null) throw inUse();
  const original = (JSON.parse(existing.response_body) as { request_id?: unknown }).request_id;
  if (typeof original === 'string') reply.header('x-request-id', original);
  request.idempotency = null;
  return reply
    .code(existing.response_status)
    .header('idempotent-replayed', 'true')
    .type('application/json; charset=utf-8')
    .send(existing.response_body);
}

/**
 * `Idempotency-Key` on POST, with Stripe's semantics: the first successful response is kept for 24 hours (by
 * the tenant's clock) and replayed for the same key and body, whose key order does not matter; another body is
 * refused. A refused request (any 4xx) or a failed one keeps nothing, so a corrected retry may reuse the key.
 * Requests with the same key at once: one makes the change, the others get its response.
 */
export const idempotencyPlugin = fp<{ ctx: AppContext }>(async (app: FastifyInstance, { ctx }) => {
  app.decorateRequest('idempotency', null);

  app.addHook('preHandler', async (request, reply) => {
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined || !request.auth) return;
    if (typeof header !== 'string' || !KEY_FORM.test(header)) {
      throw new AppError('validation_error', 'The request failed validation.', {
        fields: { 'Idempotency-Key': 'must be 1 to 255 printable ASCII characters' },
      });
    }
    const auth = request.auth;
    const pending: PendingKey = {
      ref: { workspaceId: auth.workspaceId, mode: auth.mode, key: header },
      hash: requestHash(request),
      auth,
    };
    request.idempotency = pending;
    return answerFromRecord(ctx, request, reply, pending);
  });

  // Every POST handler runs with the hook that keeps its response in its unit of work.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    const handler = route.handler as RouteHandlerMethod;
    route.handler = async function keyed(this: FastifyInstance, request, reply) {
      const pending = request.idempotency;
      if (!pending) return handler.call(this, request, reply);
      const keeper = new KeepResponse(request, reply, pending);
      try {
        const result = (await withCommitHook(pending.auth, keeper, async () =>
          handler.call(this, request, reply),
        )) as { data?: unknown } | undefined;
        if (reply.sent) return reply;
        if (keeper.kept === null) await keeper.keepAlone(ctx.db, result?.data);
        if (keeper.kept === null) return result;
        const sent = reply.serialize(result);
        if (sent !== keeper.kept) {
          request.log.error(
            'the response differs from the one kept under its Idempotency-Key; sending the kept one',
          );
        }
        return reply.type('application/json; charset=utf-8').send(keeper.kept);
      } catch (error) {
        if (!(error instanceof KeyTaken)) throw error;
        const answered = await answerFromRecord(ctx, request, reply, pending);
        if (!answered) throw inUse();
        return answered;
      }
    };
  });
});
