import { AppError } from './app-error.js';
import { hasPrefix, type IdKind } from './ids.js';

/** What every id looks like: a prefix and 26 characters of Crockford base32. */
const ID_FORM = /^[a-z]{2,3}_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Opaque keyset cursor: the id of the last item of a page. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, id: lastId }), 'utf8').toString('base64url');
}

/** The id a cursor points after; refused unless it came from a list of `kind`. */
export function decodeCursor(cursor: string, kind: IdKind): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      (parsed as { v?: unknown }).v === 1 &&
      typeof (parsed as { id?: unknown }).id === 'string' &&
      ID_FORM.test((parsed as { id: string }).id) &&
      hasPrefix(kind, (parsed as { id: string }).id)
    ) {
      return (parsed as { id: string }).id;
    }
  } catch {
    // fall through to the error below
  }
  throw new AppError('validation_error', 'The request failed validation.', {
    fields: { cursor: 'is not a cursor returned by this list' },
  });
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
  return Buffer.from(JSON.stringify({ v: 1, k: position.key, id: position.id }), 'utf8').toString(
    'base64url',
  );
}

/** The position a keyed cursor points after; refused unless it came from a list of `kind` with keys of `keyForm`. */
export function decodeKeyedCursor(cursor: string, kind: IdKind, keyForm: RegExp): KeyedPosition {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null) {
      const { v, k, id } = parsed as { v?: unknown; k?: unknown; id?: unknown };
      if (
        v === 1 &&
        typeof k === 'string' &&
        keyForm.test(k) &&
        typeof id === 'string' &&
        ID_FORM.test(id) &&
        hasPrefix(kind, id)
      ) {
        return { key: k, id };
      }
    }
  } catch {
    // fall through to the error below
  }
  throw new AppError('validation_error', 'The request failed validation.', {
    fields: { cursor: 'is not a cursor returned by this list' },
  });
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
