import type { IncomingHttpHeaders } from 'node:http';
import type { TestApp } from './app.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: IncomingHttpHeaders & Record<string, string | string[] | undefined>;
  body: T;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/** A client bound to one API key; paths are relative to /api/v1. */
export function client(t: TestApp, key: string | null) {
  async function request(method: Method, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await t.app.inject({
      method,
      url: path.startsWith('/') && !path.startsWith('/api/') ? `/api/v1${path}` : path,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    let parsed: unknown = response.body;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.statusCode, headers: response.headers, body: parsed } as ApiResponse;
  }
  return {
    get: (path: string, headers?: Record<string, string>) => request('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      request('POST', path, body, headers),
    patch: (path: string, body?: unknown, headers?: Record<string, string>) =>
      request('PATCH', path, body, headers),
    delete: (path: string, headers?: Record<string, string>) => request('DELETE', path, undefined, headers),
    request,
  };
}

export type Client = ReturnType<typeof client>;
