import type { FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { ulid } from '../lib/ids.js';

export interface Ok<T> {
  success: true;
  data: T;
  request_id: string;
}

export function ok<T>(request: FastifyRequest, data: T): Ok<T> {
  return { success: true, data, request_id: request.id };
}

/** Success envelope schema around a result schema. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data, request_id: Type.String() });
}

export const ErrorEnvelope = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  }),
  request_id: Type.String(),
});

/** List result: newest first, keyset pagination. */
export function ListOf<T extends TSchema>(item: T) {
  const title = (item as { title?: unknown }).title;
  return Type.Object(
    {
      items: Type.Array(item),
      has_more: Type.Boolean({ description: 'More items follow; pass next_cursor as cursor to get them.' }),
      next_cursor: Type.Union([Type.String(), Type.Null()]),
    },
    typeof title === 'string' ? { title: `${title}List` } : {},
  );
}

export const PaginationQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
};

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Reuses a well-formed incoming X-Request-Id, else makes one. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : `req_${ulid(Date.now())}`;
}
