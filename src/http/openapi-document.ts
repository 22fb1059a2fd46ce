import type { Registry } from '../context.js';
import type { ErrorCode } from '../lib/app-error.js';
import { canonicalJson } from '../lib/canonical-json.js';
import { requiredScope } from '../modules/api-keys/scopes.js';
import { ERROR_CATALOG } from './error-catalog.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON, walked and rewritten in place
type Json = any;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Tags of the document, in the order a reader meets them. */
export const TAGS = [
  {
    name: 'Account',
    description: 'The key in use, its workspace and mode, API usage, the plan, and the test clock.',
  },
  { name: 'Customers', description: 'The people and businesses that owe money.' },
  {
    name: 'Payment plans (tracks)',
    description:
      'What a customer owes: hire purchase, instalments, contributions. The wire name is `tracks` (`trackId`). ' +
      'A plan’s balance is always its amount minus its payments.',
  },
  {
    name: 'Payments',
    description: 'Money in, applied to a plan. Recorded payments are never edited: they are reversed.',
  },
  {
    name: 'Collection schedules',
    description:
      'When money falls due: schedules generate dated obligations (calendar dates in the workspace time zone); every payment on a plan pays its open obligations oldest due date first.',
  },
  {
    name: 'Payment mandates',
    description:
      "A payer's consent to automatic debit, given on a consent page of this server (no key, works once, 24 hours).",
  },
  {
    name: 'Collection attempts',
    description:
      'Automatic collections of the obligations of auto_debit and mixed schedules (with or without a plan), through the mandate’s provider; retried 1, 3 and 7 days after a retryable failure. Providers report charges, transfers to virtual accounts and completed checkouts to the notification URL.',
  },
  {
    name: 'Reminders',
    description:
      'Messages to customers by e-mail, SMS or WhatsApp: queued through the API or made by reminder_only and mixed schedules (3 days before due, on the due day, 3 and 7 days after; never 21:00 to 08:00 in the workspace time zone), with one log row per delivery try. Test mode never leaves the machine.',
  },
  {
    name: 'Reports',
    description:
      'Summary, collections and overdue ageing per currency (never summed across currencies), on the tenant clock; exports streamed to a file with a signed download link.',
  },
  { name: 'Ledger', description: 'Append-only entries; a plan’s entries always sum to its balance.' },
  {
    name: 'Webhooks',
    description: 'Endpoints that receive events, signed per Standard Webhooks, and the log of every attempt.',
  },
  { name: 'Events', description: 'The events of the last 30 days, to read or deliver again.' },
];

const HEADERS = {
  'X-Request-Id': {
    description:
      'The id of this request, also in the body as `request_id`; give it when reporting a problem.',
    schema: { type: 'string', examples: ['req_01JD7ZQ4N6X3E2W9V8T5R4K2M1'] },
  },
  'X-RateLimit-Limit': {
    description: "Requests the key may make per minute (the workspace plan's limit).",
    schema: { type: 'string', examples: ['600'] },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current minute.',
    schema: { type: 'string', examples: ['597'] },
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until the current window ends and the count starts again.',
    schema: { type: 'string', examples: ['42'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'string', examples: ['42'] },
  },
  'Idempotent-Replayed': {
    description: '`true` when this is the kept response of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
const LIMIT_HEADERS = {
  'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': headerRef('X-RateLimit-Reset'),
};

const PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes the request safe to retry: the first successful response is kept for 24 hours and replayed for the ' +
      'same key and body (key order does not matter); another body is `idempotency_key_reused`. A refused ' +
      'request keeps nothing.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    example: 'pay-2026-11-23-ada-0001',
  },
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: 'Your own id for the request (1 to 128 of `A-Za-z0-9._-`); used as its request id.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
    example: 'checkout-7f3a91',
  },
};

const SUCCESS_DESCRIPTION: Record<string, string> = {
  '200': 'OK: the result is in `data`.',
  '201': 'Created: the new record is in `data`.',
  '202': 'Accepted: the work is queued; what was queued is in `data`.',
};

/** The error codes an operation can answer with, from its shape and what the route declares. */
function errorCodes(method: string, operation: Json): ErrorCode[] {
  const parameters: Json[] = operation.parameters ?? [];
  const codes = new Set<ErrorCode>([
    'unauthorized',
    'forbidden',
    'rate_limited',
    'internal_error',
    'service_unavailable',
  ]);
  if (parameters.some((p) => p.in === 'path')) {
    codes.add('not_found');
    codes.add('validation_error');
  }
  if (parameters.some((p) => p.in === 'query')) codes.add('validation_error');
  if (operation.requestBody) {
    for (const code of [
      'invalid_json',
      'payload_too_large',
      'unsupported_media_type',
      'validation_error',
    ] as const) {
      codes.add(code);
    }
  }
  if (method === 'post') {
    codes.add('idempotency_key_in_use');
    codes.add('idempotency_key_reused');
  }
  for (const code of (operation['x-errors'] ?? []) as ErrorCode[]) codes.add(code);
  return [...codes];
}

/** The error envelope of one status, its `code` one of `codes`. */
function errorResponse(status: number, codes: ErrorCode[]): Json {
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_CATALOG[code].when}`).join(' '),
    headers: {
      'X-Request-Id': headerRef('X-Request-Id'),
      ...(status === 429 ? { 'Retry-After': headerRef('Retry-After'), ...LIMIT_HEADERS } : {}),
    },
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['success', 'error', 'request_id'],
          properties: {
            success: { type: 'boolean', const: false },
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: codes },
                message: { type: 'string' },
                details: { type: 'object', additionalProperties: true },
              },
            },
            request_id: { type: 'string' },
          },
        },
        example: {
          success: false,
          error: { code: codes[0], message: ERROR_CATALOG[codes[0] as ErrorCode].when },
          request_id: 'req_01JD7ZQ4N6X3E2W9V8T5R4K2M1',
        },
      },
    },
  };
}

/** Per-status error responses, the success response's headers, the parameters every call may send. */
function completeOperation(path: string, method: string, operation: Json): void {
  // A route served without a key under a scoped path (a signed download link) says so with `x-public`.
  const scope = operation['x-public'] ? null : requiredScope(path, method.toUpperCase());
  if (scope) {
    operation.security = [{ apiKey: [scope] }];
    operation['x-required-scope'] = scope;
    operation.description = `${operation.description ? `${operation.description}\n\n` : ''}Scope: \`${scope}\`.`;
  } else {
    // Called by others than API clients (a provider's notifications): no key, so no scope and no Idempotency-Key.
    operation.security = [];
    operation['x-public'] = true;
  }
  operation.parameters = [
    ...(operation.parameters ?? []),
    { $ref: '#/components/parameters/RequestId' },
    ...(method === 'post' && scope ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
  ];

  const responses: Json = {};
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!/^2\d\d$/.test(status)) continue;
    responses[status] = {
      ...(response as Json),
      // A file (not the JSON envelope) keeps the description its route gives.
      description: (response as Json).content?.['application/json']
        ? (SUCCESS_DESCRIPTION[status] ?? 'Success.')
        : ((response as Json).description ?? 'Success.'),
      headers: {
        'X-Request-Id': headerRef('X-Request-Id'),
        ...LIMIT_HEADERS,
        ...(method === 'post' ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {}),
      },
    };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(method, operation)) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = errorResponse(status, codes);
  }
  operation.responses = responses;
  delete operation['x-errors'];
}

/**
 * Moves every schema that has a `title` into `components.schemas` under that name and refers to it, so clients
 * generated from the document get named types. Two different schemas with one name are a programming error.
 */
function hoistNamedSchemas(node: Json, schemas: Record<string, Json>): Json {
  if (Array.isArray(node)) return node.map((item) => hoistNamedSchemas(item, schemas));
  if (node === null || typeof node !== 'object') return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node)) {
    // Examples are data, not schemas: a `title` inside one is a value.
    copy[key] = key === 'examples' || key === 'example' ? value : hoistNamedSchemas(value, schemas);
  }
  const name = copy.title;
  if (typeof name !== 'string' || !('type' in copy || 'anyOf' in copy || 'allOf' in copy)) return copy;
  const existing = schemas[name];
  if (existing && canonicalJson(existing) !== canonicalJson(copy)) {
    throw new Error(
      `two different schemas are named ${name}: ${JSON.stringify(existing)} and ${JSON.stringify(copy)}`,
    );
  }
  schemas[name] = copy;
  return { $ref: `#/components/schemas/${name}` };
}

/** The OpenAPI 3.1 `webhooks` section: one POST per event type with the event it carries. */
function webhooksSection(registry: Registry): Json {
  const section: Json = {};
  for (const type of registry.eventTypes) {
    const objectSchema = registry.eventSchemas[type];
    section[type] = {
      post: {
        operationId: `event_${type.replace(/\./g, '_')}`,
        summary: `${type}`,
        description:
          `Sent to every enabled endpoint subscribed to \`${type}\`. Verify the Standard Webhooks signature over ` +
          'the raw body before trusting it; the same event may come more than once (use `webhook-id`).',
        tags: ['Webhook events'],
        parameters: [
          {
            name: 'webhook-id',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description: 'The event id.',
          },
          {
            name: 'webhook-timestamp',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description: 'Seconds since the epoch when this attempt was made.',
          },
          {
            name: 'webhook-signature',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description: '`v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the endpoint secret.',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['id', 'type', 'createdAt', 'livemode', 'data'],
                properties: {
                  id: { type: 'string' },
                  type: { type: 'string', const: type },
                  createdAt: { type: 'string', format: 'date-time' },
                  livemode: { type: 'boolean' },
                  data: {
                    type: 'object',
                    required: ['object'],
                    properties: {
                      object: objectSchema,
                      previous_attributes: {
                        type: 'object',
                        additionalProperties: true,
                        description: 'On update events: the values the changed fields had before.',
                      },
                    },
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': { description: 'Received. Any 2xx within 10 s acknowledges the event.' },
          '400': { description: 'Refused (a bad signature, say): the delivery is retried for about 3 days.' },
        },
      },
    };
  }
  return section;
}

/** Turns what @fastify/swagger generates from the route schemas into the reference document. */
export function completeDocument(document: Json, registry: Registry): Json {
  const schemas: Record<string, Json> = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = (item as Json)[method];
      if (operation) completeOperation(path, method, operation);
    }
  }
  document.paths = hoistNamedSchemas(document.paths ?? {}, schemas);
  document.webhooks = hoistNamedSchemas(webhooksSection(registry), schemas);
  document.components = {
    ...document.components,
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
    headers: HEADERS,
    parameters: PARAMETERS,
  };
  document.tags = [
    ...TAGS,
    {
      name: 'Webhook events',
      description: 'What your endpoints receive: one request per event, signed per Standard Webhooks.',
    },
  ];
  return document;
}
