import { type Compilable, CompiledQuery } from 'kysely';
import { type DialectName, dialectOf } from './dialect.js';
import type { DbOrTrx } from './schema.js';

/** Distinct shapes one statement keeps compiled; past it, a statement is built and compiled on every call. */
const MAX_SHAPES_PER_STATEMENT = 64;

/**
 * A value of a statement's input while the statement is built once for its shape: where the value sits in
 * the arguments. Kysely takes it as a parameter like any value; a build that reads it as text or number (to
 * decide what to write) throws, since the statement would then differ by value, not by shape.
 */
class Slot {
  constructor(readonly path: readonly (string | number)[]) {}

  valueIn(args: readonly unknown[]): unknown {
    let value: unknown = args;
    for (const step of this.path) value = (value as Record<string | number, unknown>)[step];
    return value;
  }

  [Symbol.toPrimitive](): never {
    throw new Error(`a shaped statement's build read the value at ${this.path.join('.')}`);
  }

  toJSON(): never {
    throw new Error(`a shaped statement's build read the value at ${this.path.join('.')}`);
  }
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The arguments' shape as text: keys, array lengths, and which values are absent, null or present (by
 * kind). False when they hold anything but plain data (an expression, a class instance): such a call is
 * built as it comes.
 */
function shapeOf(value: unknown, parts: string[]): boolean {
  if (value === null) {
    parts.push('n');
    return true;
  }
  switch (typeof value) {
    case 'undefined':
      parts.push('u');
      return true;
    case 'boolean':
      parts.push(String(value));
      return true;
    case 'string':
    case 'number':
    case 'bigint':
      parts.push(typeof value);
      return true;
    case 'object': {
      if (Array.isArray(value)) {
        parts.push(`[${value.length}`);
        for (const item of value) if (!shapeOf(item, parts)) return false;
        parts.push(']');
        return true;
      }
      if (!isPlainObject(value)) return false;
      parts.push('{');
      for (const key in value) {
        parts.push(key);
        if (!shapeOf(value[key], parts)) return false;
      }
      parts.push('}');
      return true;
    }
    default:
      return false;
  }
}

/** The arguments with every text and number replaced by the slot that names where it sits. */
function slotted(value: unknown, path: (string | number)[]): unknown {
  if (value === null || value === undefined || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((item, index) => slotted(item, [...path, index]));
  if (typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = slotted(item, [...path, key]);
    return copy;
  }
  return new Slot(path);
}

interface Template {
  sql: string;
  /** A slot for each parameter taken from the arguments, the value itself for one the build wrote. */
  parameters: readonly unknown[];
}

/**
 * A shape whose statement binds an object (JSON built from the arguments, say) cannot be filled from slots:
 * its calls are built as they come.
 */
const UNFILLABLE = Symbol('unfillable');

function templateOf(compiled: CompiledQuery<unknown>): Template | typeof UNFILLABLE {
  const fillable = compiled.parameters.every(
    (parameter) => parameter instanceof Slot || parameter === null || typeof parameter !== 'object',
  );
  return fillable ? { sql: compiled.sql, parameters: compiled.parameters } : UNFILLABLE;
}

/**
 * A statement built by Kysely once for each shape of its arguments (and database), then only filled: its text
 * is kept, and each call takes its parameters from its own arguments. Building and compiling a statement was a
 * quarter to a third of the server's CPU per payment. `build` must write the same text for arguments of the
 * same shape, which holds when it hands their texts and numbers to Kysely and decides nothing on them (`Slot`
 * throws if it reads one as text, number or JSON, but not when it compares one with `===`); absent and null values, booleans,
 * arrays' lengths and objects' keys are part of the shape, so a build may decide on those.
 */
export function shaped<A extends unknown[], R>(
  build: (db: DbOrTrx, ...args: A) => Compilable<R>,
): (db: DbOrTrx, ...args: A) => Compilable<R> {
  const templates = new Map<string, Template | typeof UNFILLABLE>();
  return (db, ...args) => {
    const dialect: DialectName = dialectOf(db);
    const parts: string[] = [dialect];
    if (!shapeOf(args, parts)) return build(db, ...args);
    const shape = parts.join('\u0001');
    let template = templates.get(shape);
    if (!template) {
      if (templates.size >= MAX_SHAPES_PER_STATEMENT) return build(db, ...args);
      template = templateOf(build(db, ...(slotted(args, []) as A)).compile());
      templates.set(shape, template);
    }
    if (template === UNFILLABLE) return build(db, ...args);
    const { sql, parameters } = template;
    return {
      compile: () =>
        CompiledQuery.raw(
          sql,
          parameters.map((parameter) => (parameter instanceof Slot ? parameter.valueIn(args) : parameter)),
        ) as CompiledQuery<R>,
    };
  };
}

/** Runs a statement made by `shaped` (or any other) on `db`: its rows. */
export async function rowsOf<R>(db: DbOrTrx, statement: Compilable<R>): Promise<R[]> {
  return (await db.executeQuery(statement.compile())).rows;
}
