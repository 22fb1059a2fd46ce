import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../../context.js';
import type { DbOrTrx, Trx } from '../../db/schema.js';
import { type CommitHook, withCommitHook } from '../../db/unit-of-work.js';
import { asInternalCall } from '../../http/internal-calls.js';
import { ID_PREFIXES } from '../../lib/ids.js';
import type { AuthContext } from '../api-keys/index.js';
import { type AuditChange, recordAudit } from './audit.service.js';

const CHANGING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
/** Fields never copied into the trail, whatever the route. */
const SECRET = /secret|password|token/i;
/** Fields that change with every write and say nothing of their own. */
const NOISE = new Set(['updatedAt', 'updated_at', 'version']);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Id prefix -> the kind of record (`cus` -> `customer`), from the one registry of prefixes. */
const KIND_OF_PREFIX = new Map<string, string>(
  Object.entries(ID_PREFIXES).map(([kind, prefix]) => [prefix, kind]),
);

/** The kind of record an id names (`pay_…` -> `payment`), or the route's resource when the id says nothing. */
export function recordTypeOf(id: string | null, routeUrl: string): string | null {
  const kind = id ? KIND_OF_PREFIX.get(id.split('_')[0] ?? '') : undefined;
  return kind ?? routeUrl.replace(/^\/api\/v1\/?/, '').split('/')[0] ?? null;
}

/**
 * What a route does, from its method and path: `POST /payments` is `payments.create`, `POST /payments/:id/reverse`
 * is `payments.reverse`, `PATCH /collection-schedules/:id` with `{action: "pause"}` is `collection-schedules.pause`.
 */
export function actionOf(method: string, routeUrl: string, body: unknown): string {
  const segments = routeUrl
    .replace(/^\/api\/v1\/?/, '')
    .split('/')
    .filter((s) => s !== '' && !s.startsWith(':'));
  const [resource = 'api', ...rest] = segments;
  const bodyAction = isObject(body) && typeof body.action === 'string' ? body.action : null;
  const verb =
    rest.length > 0
      ? rest.join('.')
      : method === 'POST'
        ? 'create'
        : method === 'DELETE'
          ? 'delete'
          : (bodyAction ?? 'update');
  return `${resource}.${verb}`;
}

/** The fields that differ between two views of a record (before null: the fields the request set). */
export function changesOf(before: Json | null, after: unknown, body: unknown): AuditChange['changes'] {
  const changes: AuditChange['changes'] = {};
  if (before && isObject(after)) {
    for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (NOISE.has(field) || SECRET.test(field)) continue;
      if (!same(before[field], after[field])) changes[field] = [before[field] ?? null, after[field] ?? null];
    }
    return changes;
  }
  if (!isObject(body)) return changes;
  for (const field of Object.keys(body)) {
    if (SECRET.test(field)) continue;
    const value = isObject(after) && field in after ? after[field] : body[field];
    changes[field] = [null, value ?? null];
  }
  return changes;
}

/** The address of the record a route acts on (`/api/v1/payments/:id/reverse` -> `/api/v1/payments/<id>`). */
function recordUrl(routeUrl: string, id: string): string | null {
  const at = routeUrl.indexOf('/:id');
  return at < 0 ? null : `${routeUrl.slice(0, at)}/${encodeURIComponent(id)}`;
}

/** The record as it was before the change, read through the API as the actor would read it. */
async function readBefore(app: FastifyInstance, auth: AuthContext, url: string): Promise<Json | null> {
  const answer = await asInternalCall(auth, (headers) => app.inject({ method: 'GET', url, headers }));
  if (answer.statusCode !== 200) return null;
  const data = (answer.json() as { data?: unknown }).data;
  return isObject(data) ? data : null;
}

/** Writes a request's audit entry in its first unit of work, just before it commits. */
class AuditEntryOfRequest implements CommitHook {
  fired = false;
  readonly runsBeforeFinal = true;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly auth: AuthContext,
    private readonly before: Json | null,
  ) {}

  async beforeCommit(trx: Trx, result: unknown, unsettled: string | null): Promise<void> {
    if (this.fired) return;
    this.fired = true;
    await this.write(trx, result, unsettled);
  }

  /** For a change made without a unit of work: the entry is written on its own. */
  async writeAlone(db: DbOrTrx, data: unknown): Promise<void> {
    if (this.fired) return;
    this.fired = true;
    await this.write(db, data);
  }

  private async write(db: DbOrTrx, result: unknown, unsettled: string | null = null): Promise<void> {
    if (this.reply.statusCode >= 300) return;
    const { request, auth } = this;
    const routeUrl = request.routeOptions.url ?? request.url;
    const body = request.body;
    const params = request.params as { id?: string } | undefined;
    const after = isObject(result) ? result : null;
    const id = typeof after?.id === 'string' ? after.id : (params?.id ?? null);
    const record = { type: recordTypeOf(id, routeUrl), id };
    // A record made under another (`POST /tracks/:id/pay-links`) is new: the one read before is its parent.
    const before = id === (params?.id ?? id) ? this.before : null;
    const changes = changesOf(before, after, body);
    // The entry is written before the unit's final statement: it holds what the request set, never what that
    // statement makes (a receipt number).
    if (unsettled && JSON.stringify(changes).includes(unsettled)) {
      throw new Error(`the audit entry of ${record.id} holds a text its change has not written yet`);
    }
    await recordAudit(db, auth, {
      actor: auth.actor,
      action: actionOf(request.method, routeUrl, body),
      record,
      changes,
      reason: isObject(body) && typeof body.reason === 'string' ? body.reason : null,
      requestId: request.id,
    });
  }
}

/**
 * The audit trail of the API: every change a key or a person (through the console, which calls the API) makes
 * leaves one entry, written in the same transaction as the change, so there is never a change without its
 * entry nor an entry without its change.
 */
export const auditTrailPlugin = fp<{ ctx: AppContext }>(async (app: FastifyInstance, { ctx }) => {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((method) => CHANGING.has(method)) || route.config?.public) return;
    const handler = route.handler as RouteHandlerMethod;
    route.handler = async function audited(this: FastifyInstance, request, reply) {
      const auth = request.auth;
      if (!auth || !CHANGING.has(request.method)) return handler.call(this, request, reply);
      const id = (request.params as { id?: string } | undefined)?.id;
      const url = id ? recordUrl(request.routeOptions.url ?? '', id) : null;
      const before = url ? await readBefore(app, auth, url) : null;
      const entry = new AuditEntryOfRequest(request, reply, auth, before);
      const result = (await withCommitHook(auth, entry, async () => handler.call(this, request, reply))) as
        | { data?: unknown }
        | undefined;
      if (!entry.fired && !reply.sent) await entry.writeAlone(ctx.db, result?.data);
      return result;
    };
  });
});
