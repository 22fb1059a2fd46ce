import type { ErrorCode } from '../lib/app-error.js';

export interface ErrorEntry {
  status: number;
  /** When the service answers with it. */
  when: string;
  /** What the integrator should do about it. */
  action: string;
}

/**
 * The one error table: every code, its HTTP status, when it comes and what to do. Exhaustive: a new code does
 * not compile until it is here. The status mapping, the OpenAPI document and the docs read it.
 */
export const ERROR_CATALOG: Readonly<Record<ErrorCode, ErrorEntry>> = {
  bad_request: {
    status: 400,
    when: 'The request is not valid HTTP (a malformed request line, say).',
    action: 'Fix the client; an HTTP library sends valid requests.',
  },
  invalid_json: {
    status: 400,
    when: 'The body is not parseable JSON, or not a JSON object.',
    action: 'Send a JSON object as the body.',
  },
  unauthorized: {
    status: 401,
    when: 'The API key is missing, malformed, unknown or revoked, or two Authorization headers were sent.',
    action: 'Send one header "Authorization: Bearer <API_KEY>" with a live key of the right mode.',
  },
  forbidden: {
    status: 403,
    when: 'The key lacks the scope the operation needs (`details.required_scope`), or the operation is for the other mode.',
    action: 'Use a key with that scope, or issue one (`paytrack key create --scopes ...`).',
  },
  not_found: {
    status: 404,
    when: 'No such record in this workspace and mode; `details.field` names the body field that held the id.',
    action: 'Check the id and that the key is of the mode (test or live) the record was made in.',
  },
  route_not_found: { status: 404, when: 'No such path.', action: 'Check the path against this document.' },
  method_not_allowed: {
    status: 405,
    when: 'The path exists but not with this method; the Allow header lists the methods it has.',
    action: 'Use one of the methods in Allow.',
  },
  request_timeout: {
    status: 408,
    when: 'The request did not arrive in time (headers within 10 s, the whole request within 30 s).',
    action: 'Send the request again; check the network between you and the service.',
  },
  invalid_state: {
    status: 409,
    when: 'The record is in a state that does not allow the action (`details.status`, `details.action`).',
    action: 'Read the record again and act on its current state; do not retry unchanged.',
  },
  idempotency_key_in_use: {
    status: 409,
    when: 'A request with this Idempotency-Key has not finished.',
    action: 'Retry the same request with the same key after a short wait.',
  },
  payload_too_large: { status: 413, when: 'The body is over 1 MiB.', action: 'Send a smaller body.' },
  unsupported_media_type: {
    status: 415,
    when: 'A body was sent without Content-Type: application/json.',
    action: 'Send bodies as JSON with Content-Type: application/json.',
  },
  headers_too_large: {
    status: 431,
    when: 'The request headers are larger than the server accepts.',
    action: 'Send fewer or shorter headers.',
  },
  validation_error: {
    status: 422,
    when: 'The request fails validation; `details.fields` maps each bad field to its problem.',
    action:
      'Correct the named fields. A request refused this way changed nothing and kept nothing under its key.',
  },
  idempotency_key_reused: {
    status: 422,
    when: 'The Idempotency-Key was used within 24 hours with a different request.',
    action: 'Use a new key for a new request.',
  },
  amount_exceeds_balance: {
    status: 422,
    when: "The payment is larger than the plan's remaining balance (`details.balance`).",
    action: 'Record at most the balance; the balance already reflects every recorded payment.',
  },
  total_too_large: {
    status: 422,
    when: 'A report figure would pass 9007199254740991 minor units (2^53 − 1), the largest integer a JSON number carries exactly; the report is refused rather than answered rounded.',
    action:
      'Ask for a shorter period (`from`, `to`) when the figure is a sum over the period (billed, collected); figures as of a time (outstanding, overdue) cannot be narrowed.',
  },
  rate_limited: {
    status: 429,
    when: "Over the key's requests per minute, or too many failed authentications from one address.",
    action: 'Wait the seconds in Retry-After, then retry.',
  },
  internal_error: {
    status: 500,
    when: 'Something unexpected failed; nothing of the request was kept.',
    action: 'Retry with the same Idempotency-Key; if it persists, report the request_id.',
  },
  service_unavailable: {
    status: 503,
    when: 'The server is shutting down and takes no new request; the connection is closed. Nothing of the request was done.',
    action:
      'Send the request again on a new connection (with the same Idempotency-Key): another node, or the server once restarted, answers it.',
  },
};

/** The error table as Markdown, for the document's description. */
export function errorTableMarkdown(): string {
  const rows = Object.entries(ERROR_CATALOG)
    .sort(([, a], [, b]) => a.status - b.status)
    .map(([code, entry]) => `| ${entry.status} | \`${code}\` | ${entry.when} | ${entry.action} |`);
  return ['| HTTP | error.code | when | what to do |', '|---|---|---|---|', ...rows].join('\n');
}
