/**
 * NUL characters and unpaired UTF-16 surrogates: text PostgreSQL refuses (a 500 if it got there) and SQLite
 * would store as invalid UTF-8. With the `u` flag a surrogate pair is one code point, so only lone halves match.
 */
const UNSAFE = /[\0\p{Cs}]/u;

export const UNSAFE_TEXT_PROBLEM = 'must not contain NUL characters or unpaired surrogates';

export function isSafeText(text: string): boolean {
  return !UNSAFE.test(text);
}

/**
 * The dotted path of the first string in a parsed JSON value that is not safe text; for an object key, the
 * path of the object. Null when all is well.
 */
export function firstUnsafeText(value: unknown, path: readonly string[] = []): string | null {
  if (typeof value === 'string') return isSafeText(value) ? null : path.join('.');
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = firstUnsafeText(item, [...path, String(index)]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    if (!isSafeText(key)) return path.join('.');
    const found = firstUnsafeText(item, [...path, key]);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The form two references are compared in: Unicode NFKC (full-width and other compatibility forms fold to
 * plain ones), invisible format characters removed, trimmed, case-folded. `BANK-REF-777`, ` bank-ref-777` and
 * `ＢＡＮＫ－ＲＥＦ－７７７` are one reference.
 */
export function referenceKey(reference: string): string {
  return reference
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .trim()
    .toUpperCase()
    .toLowerCase();
}
