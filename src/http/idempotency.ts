import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../context.js';
import { AppError } from '../lib/app-error.js';
import type { Mode } from '../modules/api-keys/api-keys.table.js';
import * as repo from './idempotency.repository.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

interface Claim {
  workspaceId: string;
  mode: Mode;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: Claim | null;
  }
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? {})}`)
    .digest('hex');
}

/**
 * `Idempotency-Key` on POST, with Stripe's semantics: the first request's response is kept for 24 hours
 * and replayed for the same key and body; another body is refused; a key still in flight is refused.
 * Requests that fail validation are not kept, so a corrected retry may reuse the key.
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
    const ref: Claim = { workspaceId: request.auth.workspaceId, mode: request.auth.mode, key: header };
    const hash = requestHash(request);

    for (let attempt = 0; attempt < 2; attempt++) {
      const now = ctx.clock.now();
      const claimed = await repo.claim(ctx.db, {
        workspace_id: ref.workspaceId,
        mode: ref.mode,
        idem_key: ref.key,
        request_hash: hash,
        status: 'processing',
        response_status: null,
        response_body: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
      });
      if (claimed) {
        request.idempotency = ref;
        return;
      }
      const existing = await repo.find(ctx.db, ref);
      if (!existing) continue;
      if (existing.expires_at <= now.toISOString()) {
        await repo.deleteExpired(ctx.db, now.toISOString());
        continue;
      }
      if (existing.request_hash !== hash) {
        throw new AppError(
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
        );
      }
      if (existing.status === 'processing' || existing.response_status === null) {
        throw new AppError(
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still being processed.',
        );
      }
      return reply
        .code(existing.response_status)
        .header('idempotent-replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(existing.response_body);
    }
    throw new AppError(
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still being processed.',
    );
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = null;
    if (reply.statusCode >= 500) {
      await repo.release(ctx.db, claim);
    } else {
      await repo.complete(
        ctx.db,
        claim,
        reply.statusCode,
        typeof payload === 'string' ? payload : String(payload),
      );
    }
    return payload;
  });
});
