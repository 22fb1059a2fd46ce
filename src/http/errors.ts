import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../lib/app-error.js';
import { ERROR_CATALOG } from './error-catalog.js';
import { validationFields } from './validation.js';

/** The HTTP status of an error code, from the one error table. */
export function statusFor(code: ErrorCode): number {
  return ERROR_CATALOG[code].status;
}

export interface ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
  request_id: string;
}

export function errorBody(request: FastifyRequest, error: AppError): ErrorBody {
  return {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details !== undefined ? { details: error.details } : {}),
    },
    request_id: request.id,
  };
}

/** Turns anything thrown into an AppError; framework errors keep their meaning, the rest is internal. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const err = error as Partial<FastifyError> & { validation?: unknown };
  if (Array.isArray(err.validation)) {
    return new AppError('validation_error', 'The request failed validation.', {
      fields: validationFields(err.validation, err.validationContext),
    });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'unsupported_media_type',
        'Send the request body as JSON with Content-Type: application/json.',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is larger than 1 MiB.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_json', 'The request body is not valid JSON.');
  }
  if (err.statusCode === 404) return new AppError('route_not_found', 'No such route.');
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError('validation_error', err.message ?? 'The request is not valid.', {});
  }
  return new AppError('internal_error', 'Something went wrong on our side. The request id identifies it.');
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  return reply
    .code(statusFor(error.code))
    .type('application/json; charset=utf-8')
    .send(errorBody(request, error));
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.code === 'internal_error') {
      request.log.error({ err: error }, 'unhandled error');
    }
    return sendError(request, reply, appError);
  });
}
