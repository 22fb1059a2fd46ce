import { createHash, randomBytes } from 'node:crypto';

/** A random token for a URL or a form: 32 bytes (256 bits), base64url, after its prefix. */
export function randomToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** SHA-256 in hex: what is stored of a token, so the database alone opens no link. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Whether text has the form of a token made by `randomToken(prefix)`. */
export const isTokenOf = (prefix: string, text: string) =>
  text.length === prefix.length + 44 && new RegExp(`^${prefix}_[A-Za-z0-9_-]{43}$`).test(text);
