/** Every error code the API can answer with; `http/errors.ts` maps each one to its HTTP status. */
export type ErrorCode =
  | 'bad_request'
  | 'invalid_json'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'invalid_state'
  | 'idempotency_key_in_use'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'headers_too_large'
  | 'validation_error'
  | 'idempotency_key_reused'
  | 'amount_exceeds_balance'
  | 'total_too_large'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable';

export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }
}

/** A `validation_error` naming each bad field, as the API reports schema failures. */
export function fieldError(
  fields: Record<string, string>,
  message = 'The request failed validation.',
): AppError {
  return new AppError('validation_error', message, { fields });
}

export function notFound(resource: string, id: string, field?: string): AppError {
  return new AppError(
    'not_found',
    `No such ${resource}: '${id}'.`,
    field ? { resource, id, field } : { resource, id },
  );
}

export function invalidState(resource: string, status: string, action: string): AppError {
  return new AppError(
    'invalid_state',
    `Cannot ${action.replaceAll('_', ' ')}: the ${resource} is ${status}.`,
    {
      status,
      action,
    },
  );
}
