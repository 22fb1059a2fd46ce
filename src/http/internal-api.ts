import type { FastifyInstance } from 'fastify';
import type { AuthContext } from '../modules/api-keys/index.js';
import { asInternalCall } from './internal-calls.js';

export interface ApiError {
  code: string;
  message: string;
  details?: { fields?: Record<string, string> } & Record<string, unknown>;
}

export type ApiAnswer<T> =
  | { ok: true; status: number; data: T }
  | { ok: false; status: number; error: ApiError };

/** A page of a list, as the API answers it. */
export interface List<T> {
  items: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

/** The API as pages for people use it (the console, the customer page): reads and changes, paths relative to `/api/v1`. */
export interface InternalApi {
  get<T>(path: string, query?: Query): Promise<ApiAnswer<T>>;
  send<T>(
    method: 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<ApiAnswer<T>>;
}

function withQuery(path: string, query: Query | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {}))
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return `/api/v1${path}${text ? `?${text}` : ''}`;
}

/**
 * Pages for people read and change nothing themselves: they call the API inside the server as the one who acts
 * (a signed-in person, a payer through their link), so validation, idempotency, events, webhooks, roles and the
 * audit trail are the API's own.
 */
export function internalApi(app: FastifyInstance, auth: AuthContext): InternalApi {
  async function call<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body: unknown,
    idempotencyKey: string | undefined,
  ): Promise<ApiAnswer<T>> {
    const answer = await asInternalCall(auth, (headers) =>
      app.inject({
        method,
        url,
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      }),
    );
    const parsed = answer.json() as { data?: T; error?: ApiError };
    return answer.statusCode < 300
      ? { ok: true, status: answer.statusCode, data: parsed.data as T }
      : {
          ok: false,
          status: answer.statusCode,
          error: parsed.error ?? { code: 'internal_error', message: 'The request failed.' },
        };
  }
  return {
    get: (path, query) => call('GET', withQuery(path, query), undefined, undefined),
    send: (method, path, body, idempotencyKey) =>
      call(method, withQuery(path, undefined), body, idempotencyKey),
  };
}
