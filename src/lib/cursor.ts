import { AppError } from './app-error.js';
import { hasPrefix, type IdKind } from './ids.js';

/** What every id looks like: a prefix and 26 characters of Crockford base32. */
const ID_FORM = /^[a-z]{2,3}_[0-9A-HJKMNP-TV-Z]{26}$/;

// Every cursor is the same codec: a small JSON object with its version (`v`), as base64url text, opaque to clients.

function encode(position: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** The fields of a cursor's object, or null when the text is not one. */
function decode(cursor: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A cursor that did not come from the list (or report) it was sent to. */
function notOurs(of: 'list' | 'report'): AppError {
  return new AppError('validation_error', 'The request failed validation.', {
    fields: { cursor: `is not a cursor returned by this ${of}` },
  });
}

const isIdOf = (kind: IdKind, id: unknown): id is string =>
  typeof id === 'string' && ID_FORM.test(id) && hasPrefix(kind, id);

/** Opaque keyset cursor: the id of the last item of a page. */
export function encodeCursor(lastId: string): string {
  return encode({ v: 1, id: lastId });
}

/** The id a cursor points after; refused unless it came from a list of `kind`. */
export function decodeCursor(cursor: string, kind: IdKind): string {
  const parsed = decode(cursor);
  if (parsed?.v === 1 && isIdOf(kind, parsed.id)) return parsed.id;
  throw notOurs('list');
}

/** Opaque cursor of a list paged by position (a report's rows, computed whole): how many items come before. */
export function encodeOffsetCursor(offset: number): string {
  return encode({ v: 1, offset });
}

/** The position a report's cursor points at; refused unless it came from a report. */
export function decodeOffsetCursor(cursor: string): number {
  const parsed = decode(cursor);
  const offset = parsed?.offset;
  if (parsed?.v === 1 && typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0)
    return offset;
  throw notOurs('report');
}

export interface Page<T> {
  items: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Turns `limit + 1` rows fetched newest first into a page. */
export function toPage<R extends { id: string }, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    items: pageRows.map(map),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(last.id) : null,
  };
}

export const DEFAULT_PAGE_SIZE = 20;

/**
 * One page of a list of `kind`, newest first: `fetch` gets the page size and the id to continue after,
 * and returns up to `limit + 1` rows so the page knows whether more follow.
 */
export async function paginate<R extends { id: string }, T>(
  query: { limit?: number; cursor?: string },
  kind: IdKind,
  fetch: (limit: number, afterId: string | undefined) => Promise<R[]>,
  map: (row: R) => T,
): Promise<Page<T>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const afterId = query.cursor ? decodeCursor(query.cursor, kind) : undefined;
  return toPage(await fetch(limit, afterId), limit, map);
}

/** Where a page of a list ordered by a sort key, then id, ends: the last item's key and id. */
export interface KeyedPosition {
  key: string;
  id: string;
}

/** Opaque cursor of a list ordered by a sort key, then id. */
export function encodeKeyedCursor(position: KeyedPosition): string {
  return encode({ v: 1, k: position.key, id: position.id });
}

/** The position a keyed cursor points after; refused unless it came from a list of `kind` with keys of `keyForm`. */
export function decodeKeyedCursor(cursor: string, kind: IdKind, keyForm: RegExp): KeyedPosition {
  const parsed = decode(cursor);
  if (parsed?.v === 1 && typeof parsed.k === 'string' && keyForm.test(parsed.k) && isIdOf(kind, parsed.id)) {
    return { key: parsed.k, id: parsed.id };
  }
  throw notOurs('list');
}

/**
 * One page of a list of `kind` ordered by a sort key, then id: `fetch` gets the page size and the position to
 * continue after, and returns up to `limit + 1` rows so the page knows whether more follow.
 */
export async function paginateByKey<R extends { id: string }, T>(
  query: { limit?: number; cursor?: string },
  kind: IdKind,
  keyForm: RegExp,
  keyOf: (row: R) => string,
  fetch: (limit: number, after: KeyedPosition | undefined) => Promise<R[]>,
  map: (rows: R[]) => T[] | Promise<T[]>,
): Promise<Page<T>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const after = query.cursor ? decodeKeyedCursor(query.cursor, kind, keyForm) : undefined;
  const rows = await fetch(limit, after);
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    items: await map(pageRows),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeKeyedCursor({ key: keyOf(last), id: last.id }) : null,
  };
}
