import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (provider keys): AES-256-GCM under PAYTRACK_SECRET_KEY. A sealed value names the key it was
 * sealed with by a short fingerprint, so a server given the wrong key says so instead of failing to decrypt,
 * and a rotation can read values sealed under the previous key while it seals them again under the new one.
 */

const VERSION = 'v1';

export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/** 32 bytes given as base64 (as `openssl rand -base64 32` prints them); null when the text is not that. */
export function parseSecretKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return null;
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === 32 ? key : null;
}

/** Which key sealed a value: 8 hex characters of its SHA-256, which say nothing of the key. */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update('paytrack secret box').update(key).digest('hex').slice(0, 8);
}

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /** Whether a value is sealed under the current key (false: a rotation has still to seal it again). */
  isCurrent(sealed: string): boolean;
}

/** `keys`: the current key first, then previous ones still accepted for reading. */
export function secretBox(keys: readonly Buffer[]): SecretBox {
  const current = keys[0];
  const byFingerprint = new Map(keys.map((key) => [keyFingerprint(key), key]));
  return {
    seal(plain) {
      if (!current) throw missingKey();
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'));
      return [VERSION, keyFingerprint(current), ...parts].join(':');
    },
    open(sealed) {
      const [version, fingerprint, iv, tag, body] = sealed.split(':');
      if (
        version !== VERSION ||
        !fingerprint ||
        iv === undefined ||
        tag === undefined ||
        body === undefined
      ) {
        throw new SecretKeyError('A stored secret is not in a form this server can read.');
      }
      if (!current) throw missingKey();
      const key = byFingerprint.get(fingerprint);
      if (!key) {
        throw new SecretKeyError(
          `A stored secret was sealed with another PAYTRACK_SECRET_KEY (fingerprint ${fingerprint}; this server has ${[
            ...byFingerprint.keys(),
          ].join(
            ', ',
          )}). Set the key it was sealed with, or the new key with the old one as PAYTRACK_SECRET_KEY_PREVIOUS.`,
        );
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretKeyError(
          'A stored secret failed its integrity check: it was changed, or sealed with another key.',
        );
      }
    },
    isCurrent(sealed) {
      return current !== undefined && sealed.split(':')[1] === keyFingerprint(current);
    },
  };
}

function missingKey(): SecretKeyError {
  return new SecretKeyError(
    'PAYTRACK_SECRET_KEY is not set: provider credentials are stored encrypted under it. Make one with `openssl rand -base64 32` and keep it safe; losing it means setting every provider key again.',
  );
}
