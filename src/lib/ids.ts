import { randomFillSync } from 'node:crypto';

/** Every identifier prefix in one place; ids sort by creation time (keyset pagination relies on it). */
export const ID_PREFIXES = {
  customer: 'cus',
  track: 'trk',
  payment: 'pay',
  reminder: 'rem',
  reminderLog: 'rml',
  event: 'evt',
  ledgerEntry: 'led',
  webhookEndpoint: 'whe',
  webhookDelivery: 'whd',
  schedule: 'sch',
  obligation: 'obl',
  mandate: 'man',
  providerSetting: 'prv',
  messageSetting: 'mst',
  inboundMessage: 'msg',
  attempt: 'att',
  payLink: 'pl',
  export: 'exp',
  workspace: 'ws',
  user: 'usr',
  auditEntry: 'aud',
  apiKey: 'key',
  job: 'job',
  portalLink: 'cpl',
  promise: 'prm',
  dispute: 'dsp',
  writeOff: 'wof',
  settlementQuote: 'sq',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32: sorts like the numbers it encodes

/**
 * The last random part used in each recent millisecond. Ids take their time from the clock of the tenant that
 * makes them, so a process makes ids for several times at once (live, and test clocks moved ahead); within
 * any one millisecond they still sort in creation order.
 */
const lastRandomByMs = new Map<number, Uint8Array>();
const REMEMBERED_MS = 256;

/** The millisecond last encoded and its text: the ids of one request mostly share their millisecond. */
let encodedMs = -1;
let encodedMsText = '';

function encodeTime(ms: number): string {
  if (ms === encodedMs) return encodedMsText;
  let out = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  encodedMs = ms;
  encodedMsText = out;
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

/**
 * Increments the random part in place, so ids made in the same millisecond still sort in creation order. Only
 * `lastRandomByMs` holds it, and its id was already written out.
 */
function increment(bytes: Uint8Array): Uint8Array {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] === 255) {
      bytes[i] = 0;
    } else {
      bytes[i] = (bytes[i] ?? 0) + 1;
      break;
    }
  }
  return bytes;
}

const RANDOM_BYTES = 10;
/** Random bytes drawn from the system in blocks: one draw of 10 bytes cost 8 µs, a copy from the block 0.1 µs. */
const randomPool = Buffer.allocUnsafe(4096);
let randomPoolAt = randomPool.length;

function freshRandom(): Uint8Array {
  if (randomPoolAt + RANDOM_BYTES > randomPool.length) {
    randomFillSync(randomPool);
    randomPoolAt = 0;
  }
  const bytes = new Uint8Array(randomPool.subarray(randomPoolAt, randomPoolAt + RANDOM_BYTES));
  randomPoolAt += RANDOM_BYTES;
  return bytes;
}

/** The millisecond `lastRandomByMs` took last: already its newest key. */
let newestMs = -1;

/** A ULID-style id body: 10 characters of milliseconds, 16 of randomness, monotonic within a millisecond. */
export function ulid(nowMs: number): string {
  const last = lastRandomByMs.get(nowMs);
  const random = last ? increment(last) : freshRandom();
  // Delete and set again, so the map's first key is the millisecond least recently used (the newest one is
  // already last).
  if (nowMs !== newestMs) {
    lastRandomByMs.delete(nowMs);
    if (lastRandomByMs.size >= REMEMBERED_MS) {
      const oldest = lastRandomByMs.keys().next().value;
      if (oldest !== undefined) lastRandomByMs.delete(oldest);
    }
    newestMs = nowMs;
  }
  lastRandomByMs.set(nowMs, random);
  return encodeTime(nowMs) + encodeRandom(random);
}

/** A new id of `kind` made at `at`, the time of the clock of whoever makes it. */
export function newId(kind: IdKind, at: Date): string {
  return `${ID_PREFIXES[kind]}_${ulid(at.getTime())}`;
}

/** An id bound for keyset reads: every id of `kind` made before `at` sorts below it, every one made from `at` on above it. */
export function firstIdAt(kind: IdKind, at: Date): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(at.getTime())}`;
}

export function hasPrefix(kind: IdKind, id: string): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`);
}
