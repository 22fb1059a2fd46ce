import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { AppError } from '../lib/app-error.js';

// ajv-formats is CommonJS; its default export sits one level deeper under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as unknown as FormatsPlugin;

const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

/** A pattern that refuses text made only of white space. */
export const NOT_BLANK = '\\S';

/** Bodies are never coerced ("100" is not an amount); query strings and path parameters are. */
const bodyAjv = addFormats(new Ajv({ ...common, coerceTypes: false }));
const queryAjv = addFormats(new Ajv({ ...common, coerceTypes: 'array' }));

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
      return `must be a valid ${String(p.format)}`;
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
  const fields: Record<string, string> = {};
  // anyOf failures repeat each branch's complaint; the anyOf line itself is the least useful.
  const useful = issues.filter((i) => i.keyword !== 'anyOf' && i.keyword !== 'oneOf');
  for (const issue of useful.length > 0 ? useful : issues) {
    const name = fieldName(issue, context);
    if (!(name in fields)) fields[name] = describe(issue);
  }
  return fields;
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
    done(null, parsed);
  });

  // A route with a body schema and no body validates `{}`, so every missing field is named.
  app.addHook('preValidation', async (request) => {
    const schema = request.routeOptions.schema as FastifySchema | undefined;
    if (schema?.body && request.body === undefined) request.body = {};
  });
}
