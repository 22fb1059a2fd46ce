import pg from 'pg';

/**
 * A parameter as PostgreSQL's extended protocol would get it: its text, untyped. Inlined as a quoted literal
 * it is untyped too (PostgreSQL infers its type from where it stands, as for `$1`), so the statement means
 * the same. Only the kinds a statement of ours binds are taken.
 */
function literalOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') {
    // A simple query's text ends at its first NUL: a literal must never cut the statement short.
    if (value.includes('\0')) throw new Error('a text parameter holds a NUL character');
    return pg.escapeLiteral(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`a parameter is not a finite number: ${value}`);
    return `'${value}'`;
  }
  if (typeof value === 'bigint' || typeof value === 'boolean') return `'${value}'`;
  throw new Error(`a parameter of type ${typeof value} cannot be inlined`);
}

/**
 * PostgreSQL: a statement this connection prepared under `name`, run by SQL's EXECUTE with its parameters as
 * literals, so it can go with other statements in one simple query and still use its prepared plan.
 */
export function executePrepared(name: string, parameters: readonly unknown[]): string {
  return `execute ${name}(${parameters.map(literalOf).join(', ')})`;
}

/** The statement's text with each `$n` outside quoted literals and identifiers replaced by `replace(n - 1)`. */
function mapPlaceholders(sql: string, replace: (index: number) => string): string {
  let text = '';
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const char = sql[i] as string;
    if (quote) {
      text += char;
      if (char === quote) quote = null;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      text += char;
      continue;
    }
    const digits = char === '$' ? /^\d+/.exec(sql.slice(i + 1)) : null;
    if (!digits) {
      text += char;
      continue;
    }
    text += replace(Number(digits[0]) - 1);
    i += digits[0].length;
  }
  return text;
}

/**
 * PostgreSQL: the statement with its parameters written in as literals, so it can go with other statements
 * in one simple query (the extended protocol takes one statement a message). Placeholders inside quoted
 * literals and identifiers are left alone.
 */
export function inlineParameters(sql: string, parameters: readonly unknown[]): string {
  return mapPlaceholders(sql, (index) => {
    if (index < 0 || index >= parameters.length) throw new Error(`no parameter $${index + 1}`);
    return literalOf(parameters[index]);
  });
}

/** The statement's placeholders moved up by `offset` (`$1` becomes `$(1 + offset)`), to join it to others. */
export function shiftPlaceholders(sql: string, offset: number): string {
  return offset === 0 ? sql : mapPlaceholders(sql, (index) => `$${index + 1 + offset}`);
}
