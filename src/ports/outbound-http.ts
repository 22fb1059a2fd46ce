import { Agent, type Dispatcher, request } from 'undici';
import { checkWebhookUrl, guardedLookup, type UrlCheck } from './url-guard.js';

export interface HttpOutcome {
  ok: boolean;
  /** The response status, or null when there was no response. */
  status: number | null;
  error: string | null;
}

export interface PostOptions {
  timeoutMs: number;
  /** Aborts the request early (the job's lease was lost, the worker is stopping). */
  signal?: AbortSignal;
}

/** Calls out of the service over HTTP (webhook deliveries), with the address guard in front. */
export interface OutboundHttp {
  /** Whether a URL may be called: its form and, unless private targets are allowed, every address it resolves to. */
  checkUrl(url: string): Promise<UrlCheck>;
  /** POSTs a body; never throws: a refusal, a timeout or a network error is an outcome too. */
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    options: PostOptions,
  ): Promise<HttpOutcome>;
}

const MAX_DRAINED_BYTES = 64 * 1024;

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `timeout: no response within ${timeoutMs / 1000} s`;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EBLOCKEDADDRESS') return 'blocked_address';
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

/**
 * undici with a hard deadline (its own timeouts fire late). Unless private targets are allowed, sockets
 * check every resolved address again at connect time, against DNS rebinding after the URL check.
 */
export function createOutboundHttp(options: { allowPrivate: boolean }): OutboundHttp {
  const dispatcher: Dispatcher = options.allowPrivate
    ? new Agent()
    : new Agent({ connect: { lookup: guardedLookup } });
  return {
    checkUrl: (url) => checkWebhookUrl(url, { allowPrivate: options.allowPrivate }),
    async post(url, headers, body, { timeoutMs, signal }) {
      const deadline = AbortSignal.timeout(timeoutMs);
      try {
        const response = await request(url, {
          method: 'POST',
          dispatcher,
          headers,
          body,
          signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
        });
        // Only drained, so the connection can be reused; what the receiver says is not kept.
        await response.body.dump({ limit: MAX_DRAINED_BYTES }).catch(() => undefined);
        const ok = response.statusCode >= 200 && response.statusCode < 300;
        return { ok, status: response.statusCode, error: ok ? null : `HTTP ${response.statusCode}` };
      } catch (error) {
        return { ok: false, status: null, error: describeFailure(error, timeoutMs) };
      }
    },
  };
}
