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

/** The request id the document's examples show. */
export const EXAMPLE_REQUEST_ID = 'req_01JD7ZQ4N6X3E2W9V8T5R4K2M1';

/** A schema's first example, if it has one. */
function exampleOf(schema: TSchema): unknown {
  const examples = (schema as { examples?: unknown }).examples;
  return Array.isArray(examples) ? examples[0] : undefined;
}

/**
 * Success envelope schema around a result schema. Its example is the result's example in the envelope, so every
 * response whose result has an example shows a whole answer in the document.
 */
export function Envelope<T extends TSchema>(data: T) {
  const example = exampleOf(data);
  return Type.Object(
    { success: Type.Literal(true), data, request_id: Type.String() },
    example === undefined
      ? {}
      : { examples: [{ success: true, data: example, request_id: EXAMPLE_REQUEST_ID }] },
  );
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

/** List result: newest first, keyset pagination. Its example is a page of the item's example. */
export function ListOf<T extends TSchema>(item: T) {
  const title = (item as { title?: unknown }).title;
  const example = exampleOf(item);
  return Type.Object(
    {
      items: Type.Array(item),
      has_more: Type.Boolean({ description: 'More items follow; pass next_cursor as cursor to get them.' }),
      next_cursor: Type.Union([Type.String(), Type.Null()]),
    },
    {
      ...(typeof title === 'string' ? { title: `${title}List` } : {}),
      ...(example === undefined
        ? {}
        : {
            examples: [{ items: [example], has_more: true, next_cursor: 'eyJpZCI6InBheV8wMUpEN1pRNE42In0' }],
          }),
    },
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
