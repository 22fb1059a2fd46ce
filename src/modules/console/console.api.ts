import type { FastifyInstance } from 'fastify';
import { asInternalCall } from '../../http/internal-calls.js';
import type { AuthContext } from '../api-keys/index.js';

export interface ApiError {
  code: string;
  message: string;
  details?: { fields?: Record<string, string> } & Record<string, unknown>;
}

export type ApiAnswer<T> =
  | { ok: true; status: number; data: T }
  | { ok: false; status: number; error: ApiError };

export type Query = Record<string, string | number | boolean | undefined | null>;

/** The API as the console uses it: a person's reads and changes, paths relative to `/api/v1`. */
export interface ConsoleApi {
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
 * The console reads and changes nothing itself: it calls the API inside the server as the signed-in person, so
 * validation, idempotency, events, webhooks, roles and the audit trail are the API's own.
 */
export function consoleApi(app: FastifyInstance, auth: AuthContext): ConsoleApi {
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
