import type { Readable } from 'node:stream';
import { type TSchema, Type } from 'typebox';
import { Envelope, ErrorEnvelope } from './envelope.js';

/** Response schemas of a route: its success envelope plus the error envelope for 4xx and 5xx. */
export function responses<T extends TSchema>(status: 200 | 201 | 202, data: T) {
  return {
    [status]: Envelope(data),
    '4xx': ErrorEnvelope,
    '5xx': ErrorEnvelope,
  } as { [K in typeof status]: ReturnType<typeof Envelope<T>> } & {
    '4xx': typeof ErrorEnvelope;
    '5xx': typeof ErrorEnvelope;
  };
}

/** A PDF answer: bytes in the document, a stream in the handler. */
export const PdfBody = (description: string) =>
  Type.Unsafe<Readable>({ type: 'string', format: 'binary', description });

/** Response schemas of a route that answers a PDF, or the error envelope. */
export function pdfResponses(description: string) {
  return {
    200: { description, content: { 'application/pdf': { schema: PdfBody(description) } } },
    '4xx': ErrorEnvelope,
    '5xx': ErrorEnvelope,
  };
}
