import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a download link works after the export is done. */
export const LINK_TTL_MS = 3_600_000;

const EXPIRES = /^[1-9][0-9]{0,11}$/;
const SIGNATURE = /^[0-9a-f]{64}$/;

/** The path of an export's download, under the API prefix. */
export function downloadPath(id: string): string {
  return `/api/v1/reports/exports/${encodeURIComponent(id)}/download`;
}

/** The hex HMAC-SHA256 of `id.expires` (expires in Unix seconds) with the server's signing key. */
export function signDownload(secret: string, id: string, expires: number): string {
  return createHmac('sha256', secret).update(`${id}.${expires}`).digest('hex');
}

/** The full signed link: `PUBLIC_URL` + path + `?expires=<unix seconds>&signature=<hex>`. */
export function downloadUrl(publicUrl: string, secret: string, id: string, expires: number): string {
  return `${publicUrl}${downloadPath(id)}?expires=${expires}&signature=${signDownload(secret, id, expires)}`;
}

export type LinkCheck =
  | { ok: true; expires: number }
  | { ok: false; reason: 'invalid' | 'expired'; expires?: number };

/**
 * The expiry (Unix seconds) a link's signature vouches for, or null when the signature is not the one for this
 * id and this expiry (a changed id, expiry or signature).
 */
export function signedExpiry(
  secret: string,
  link: { id: string; expires: string; signature: string },
): number | null {
  if (!EXPIRES.test(link.expires) || !SIGNATURE.test(link.signature)) return null;
  const expires = Number(link.expires);
  const expected = Buffer.from(signDownload(secret, link.id, expires), 'hex');
  return timingSafeEqual(expected, Buffer.from(link.signature, 'hex')) ? expires : null;
}

/** Whether a link whose signature holds has expired at `nowMs`: it works strictly before its expiry. */
export function isExpired(expires: number, nowMs: number): boolean {
  return nowMs >= expires * 1000;
}

/** Checks a download link as presented: its signature (`invalid` when changed), then its expiry at `nowMs`. */
export function verifyDownload(
  secret: string,
  link: { id: string; expires: string; signature: string },
  nowMs: number,
): LinkCheck {
  const expires = signedExpiry(secret, link);
  if (expires === null) return { ok: false, reason: 'invalid' };
  if (isExpired(expires, nowMs)) return { ok: false, reason: 'expired', expires };
  return { ok: true, expires };
}

/** A link's expiry in Unix seconds: an hour after `completedAtMs`, to the second. */
export function linkExpiry(completedAtMs: number): number {
  return Math.floor((completedAtMs + LINK_TTL_MS) / 1000);
}
