import { Type } from 'typebox';
import { NOT_BLANK } from '../http/validation.js';

/** Schemas several modules share: bounds from decisions.md "Limits". */

/**
 * Up to 50 string values keyed by names of 1 to 40 characters. Written as plain JSON Schema: a record's key
 * schema would not reach the document, and the same schema must read the same in routes and in webhooks.
 */
export const Metadata = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: { type: 'string', maxLength: 500 },
  propertyNames: { minLength: 1, maxLength: 40 },
  maxProperties: 50,
  description: 'Up to 50 string values of your own, keyed by names of 1 to 40 characters.',
});

export const Amount = Type.Integer({
  minimum: 1,
  maximum: 1_000_000_000_000,
  description: 'Integer count of the currency minor unit (kobo, cents).',
});

export const Currency = Type.String({
  minLength: 3,
  maxLength: 3,
  description: 'ISO 4217 code; defaults to the workspace currency.',
});

/** Names and titles: 1 to 200 characters, not only spaces. */
export const Text200 = Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK });

export const Instant = Type.String({ format: 'date-time', description: 'ISO 8601 in UTC' });
export const CalendarDate = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
