import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { AppError, fieldError } from '../lib/app-error.js';
import { DATE_PROBLEM, INSTANT_PROBLEM, isDateInRange, isInstantInRange } from '../lib/instant.js';
import { firstUnsafeText, isSafeText, UNSAFE_TEXT_PROBLEM } from '../lib/text.js';

// ajv-formats is CommonJS; its default export sits one level deeper under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as unknown as FormatsPlugin;

const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

/** A pattern that refuses text made only of white space. */
export const NOT_BLANK = '\\S';

type FormatCheck = (text: string) => boolean;
const checkDate = (fullFormats.date as { validate: FormatCheck }).validate;
const checkDateTime = (fullFormats['date-time'] as { validate: FormatCheck }).validate;

/** ajv with the project's formats: dates and instants of RFC 3339 form, and only from 1970 to 9999. */
function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  ajv.addFormat('date-time', { validate: (text: string) => checkDateTime(text) && isInstantInRange(text) });
  ajv.addFormat('date', { validate: (text: string) => checkDate(text) && isDateInRange(text) });
  return ajv;
}

/** Bodies are never coerced ("100" is not an amount); query strings and path parameters are. */
const bodyAjv = withFormats(new Ajv({ ...common, coerceTypes: false }));
const queryAjv = withFormats(new Ajv({ ...common, coerceTypes: 'array' }));

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function describe(issue: ValidationIssue): string {
  const p = issue.params ?? {};
  switch (issue.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not an accepted field';
    case 'type':
      return `must be ${p.type === 'integer' ? 'an integer' : `of type ${String(p.type)}`}`;
    case 'format':
      if (p.format === 'date-time') return INSTANT_PROBLEM;
      if (p.format === 'date') return DATE_PROBLEM;
      return `must be a valid ${String(p.format)}`;
    case 'propertyNames':
      return `has a key that is not 1 to 40 characters: '${String(p.propertyName).slice(0, 60)}'`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[] | undefined)?.join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    case 'maxProperties':
      return `must have at most ${String(p.limit)} keys`;
    case 'minItems':
      return `must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'pattern':
      return p.pattern === NOT_BLANK ? 'must not be blank' : 'has an invalid form';
    default:
      return issue.message ?? 'is invalid';
  }
}

function fieldName(issue: ValidationIssue, context: string | undefined): string {
  const p = issue.params ?? {};
  const path = (issue.instancePath ?? '')
    .split('/')
    .filter(Boolean)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (issue.keyword === 'required' && typeof p.missingProperty === 'string') path.push(p.missingProperty);
  if (issue.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') {
    path.push(p.additionalProperty);
  }
  return path.join('.') || (context === 'body' ? 'body' : (context ?? 'request'));
}

/** Maps schema failures to `{ field: problem }`, one entry per field, the first problem wins. */
export function validationFields(
  issues: readonly ValidationIssue[],
  context?: string,
): Record<string, string> {
  // A Map, so field names like __proto__ or constructor are kept as names.
  const fields = new Map<string, string>();
  // anyOf failures repeat each branch's complaint; the anyOf line itself is the least useful. A key's own
  // failure (under propertyNames) is said by the propertyNames line.
  const useful = issues.filter(
    (i) => i.keyword !== 'anyOf' && i.keyword !== 'oneOf' && i.params?.propertyName === undefined,
  );
  for (const issue of useful.length > 0 ? useful : issues) {
    const name = fieldName(issue, context);
    if (!fields.has(name)) fields.set(name, describe(issue));
  }
  return Object.fromEntries(fields);
}

export function registerValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validate = (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object);
    return (data: unknown) =>
      validate(data) ? { value: data } : { error: validate.errors as unknown as ErrorObject[] as never };
  });

  // Every request body is a JSON object: anything else (an array, a string, `null`) is invalid JSON here.
  // Fastify's built-in text/plain parser goes too, so a text body is 415, not a string that fails validation.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new AppError('invalid_json', 'The request body is not valid JSON.'), undefined);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return done(new AppError('invalid_json', 'The request body must be a JSON object.'), undefined);
    }
    const unsafe = firstUnsafeText(parsed);
    if (unsafe !== null) return done(fieldError({ [unsafe || 'body']: UNSAFE_TEXT_PROBLEM }), undefined);
    done(null, parsed);
  });

  app.addHook('preValidation', async (request) => {
    // Path parameters and query strings reach SQL too: the same text rules as bodies, before anything else.
    for (const part of [request.params, request.query]) {
      for (const [name, value] of Object.entries((part ?? {}) as Record<string, unknown>)) {
        const values = Array.isArray(value) ? value : [value];
        if (!isSafeText(name) || values.some((v) => typeof v === 'string' && !isSafeText(v))) {
          throw fieldError({ [isSafeText(name) ? name : 'query']: UNSAFE_TEXT_PROBLEM });
        }
      }
    }
    // A route with a body schema and no body validates `{}`, so every missing field is named.
    const schema = request.routeOptions.schema as FastifySchema | undefined;
    if (schema?.body && request.body === undefined) request.body = {};
  });
}
