import { randomBytes } from 'node:crypto';

/** Every identifier prefix in one place; ids sort by creation time (keyset pagination relies on it). */
export const ID_PREFIXES = {
  customer: 'cus',
  track: 'trk',
  payment: 'pay',
  reminder: 'rem',
  event: 'evt',
  ledgerEntry: 'evt',
  webhookEndpoint: 'whe',
  webhookDelivery: 'whd',
  schedule: 'sch',
  obligation: 'obl',
  mandate: 'man',
  attempt: 'att',
  export: 'exp',
  workspace: 'ws',
  apiKey: 'key',
  job: 'job',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32: sorts like the numbers it encodes

let lastTime = 0;
let lastRandom: Uint8Array = new Uint8Array(10);

function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** Increments the random part so ids made in the same millisecond still sort in creation order. */
function increment(bytes: Uint8Array): Uint8Array {
  const next = Uint8Array.from(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] === 255) {
      next[i] = 0;
    } else {
      next[i] = (next[i] ?? 0) + 1;
      break;
    }
  }
  return next;
}

/** A ULID-style id body: 10 characters of milliseconds, 16 of randomness, monotonic within a process. */
export function ulid(nowMs: number = Date.now()): string {
  if (nowMs <= lastTime) {
    lastRandom = increment(lastRandom);
  } else {
    lastTime = nowMs;
    lastRandom = randomBytes(10);
  }
  return encodeTime(lastTime) + encodeRandom(lastRandom);
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid()}`;
}

export function hasPrefix(kind: IdKind, id: string): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`);
}
