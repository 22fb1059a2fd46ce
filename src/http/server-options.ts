import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { type FastifyHttpOptions, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino from 'pino';
import type { Config } from '../config.js';
import { type ErrorCode, fieldError } from '../lib/app-error.js';
import { requestIdFor } from './envelope.js';
import { sendError, statusFor } from './errors.js';
import { applySecurityHeaders, SECURITY_HEADERS } from './security-headers.js';

export interface HttpLimits {
  /** The whole request, body included, must arrive within this. */
  requestTimeoutMs: number;
  /** The request line and headers must arrive within this. */
  headersTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = { requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 };

/** Query parameters whose values never reach a log line. */
const SECRET_PARAM = /key|token|secret|passw|auth|sig/i;

/** Path segments that are secrets themselves: one-time tokens (`ct_…` in consent links), by their prefix. */
const SECRET_SEGMENT = /\/(ct|ft)_[A-Za-z0-9_-]{16,}/g;

/** The URL as logged: tokens in the path and the values of parameters that look secret are replaced. */
export function loggableUrl(url: string): string {
  const question = url.indexOf('?');
  const path = (question < 0 ? url : url.slice(0, question)).replace(SECRET_SEGMENT, '/$1_[redacted]');
  if (question < 0) return path;
  const params = url
    .slice(question + 1)
    .split('&')
    .map((pair) => {
      const [name = ''] = pair.split('=', 1);
      return SECRET_PARAM.test(decodeURIComponentSafe(name)) ? `${name}=[redacted]` : pair;
    });
  return `${path}?${params.join('&')}`;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Errors Node's HTTP parser meets before Fastify sees a request (oversized headers, a malformed request line, a
 * client too slow): answered in the envelope too, then the connection is closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [code, message]: [ErrorCode, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ['headers_too_large', 'The request headers are larger than the server accepts.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', 'The request did not arrive in time; the connection is closed.']
        : ['bad_request', 'The request is not valid HTTP.'];
  const status = statusFor(code);
  const requestId = requestIdFor(undefined);
  const body = JSON.stringify({ success: false, error: { code, message }, request_id: requestId });
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    ...SECURITY_HEADERS,
    connection: 'close',
  };
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n')}\r\n\r\n${body}`,
  );
}

/**
 * Which peers' `X-Forwarded-For` is believed (TRUST_PROXY). Off by default: otherwise any client could choose its
 * own address by the header. A hop count trusts that many proxies nearest the service, whoever they are; Fastify
 * ignores a bare number (it cannot tell a proxy from a client that connects directly), so it is given as the
 * function that says so.
 */
function trustProxyOf(trust: Config['trustProxy']): FastifyHttpOptions<Server>['trustProxy'] {
  if (typeof trust !== 'number') return trust;
  return (_address: string, hop: number) => hop < trust;
}

/** A page prefix (the consent page's `/consent`) and how it answers an address under it that cannot be routed. */
export interface PageForBadUrl {
  prefix: string;
  badUrl: (reply: FastifyReply) => FastifyReply;
}

function pageOf(url: string, pages: readonly PageForBadUrl[]): PageForBadUrl | undefined {
  return pages.find(
    ({ prefix }) => url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`),
  );
}

/**
 * Fastify's options: logging without secrets, request ids, bounds and timeouts, errors in the envelope (or, under
 * a page's prefix, as that page).
 */
export function serverOptions(
  config: Readonly<Config>,
  options: { logger?: boolean | object; http?: Partial<HttpLimits>; pages?: readonly PageForBadUrl[] },
): FastifyHttpOptions<Server> {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.http };
  return {
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            // A request is logged as these four fields, never its headers (its key, its Idempotency-Key): pino's
            // redaction of header paths found nothing left to redact and cost 2 % of a read's CPU.
            serializers: {
              req: (req: { method: string; url: string; hostname?: string; ip?: string }) => ({
                method: req.method,
                url: loggableUrl(req.url),
                host: req.hostname,
                remoteAddress: req.ip,
              }),
            },
            ...(typeof options.logger === 'object' && 'stream' in options.logger
              ? {}
              : // Written by a buffer that flushes in the background (and at exit): a synchronous write per
                // line was 8% of a loaded server's CPU.
                { stream: pino.destination({ dest: 1, sync: false }) }),
            ...(typeof options.logger === 'object' ? options.logger : {}),
          },
    logController: new OneLinePerRequest(),
    trustProxy: trustProxyOf(config.trustProxy),
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // Answered by the request guards instead, in the envelope with the security headers (Fastify's own 503 has neither).
    return503OnClosing: false,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      // Node would answer a request without Host with a bare 400; the request guards answer it in the envelope.
      requireHostHeader: false,
      headersTimeout: limits.headersTimeoutMs,
      // How often Node looks for requests past their timeouts (30 s by default, longer than the timeouts).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    clientErrorHandler: answerClientError,
    // Path parameters as long as the URL: the route's schema gives the same validation_error at any length.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 8_192 },
    // Errors met before routing (a URL that cannot be decoded): no hook runs for them, so the headers are set here.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      applySecurityHeaders(reply, request.url);
      const page = pageOf(request.url, options.pages ?? []);
      if (page) return page.badUrl(reply);
      if (error.code === 'FST_ERR_BAD_URL') {
        return sendError(
          request,
          reply,
          fieldError({ path: 'is not a valid URL: malformed percent-encoding' }),
        );
      }
      return sendError(request, reply, fieldError({ path: error.message }));
    },
  };
}

/** One log line per request, when it is answered (what was asked, the status, how long), instead of two. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
