import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  downloadPath,
  downloadUrl,
  isExpired,
  LINK_TTL_MS,
  linkExpiry,
  signDownload,
  signedExpiry,
  verifyDownload,
} from '../../src/modules/exports/exports.signing.js';

const SECRET = 'a-server-secret-for-export-links-0123456789';
const ID = 'exp_01JD7ZR3S4T5V6W7X8Y9Z0A1B2';
const COMPLETED = Date.parse('2030-01-02T03:04:05.678Z');
const EXPIRES = linkExpiry(COMPLETED);
const SIGNATURE = signDownload(SECRET, ID, EXPIRES);

const check = (link: { id?: string; expires?: string; signature?: string }, nowMs = COMPLETED) =>
  verifyDownload(SECRET, { id: ID, expires: String(EXPIRES), signature: SIGNATURE, ...link }, nowMs);

describe('download links', () => {
  test('expire an hour after completion, in whole Unix seconds', () => {
    assert.equal(LINK_TTL_MS, 3_600_000);
    assert.equal(EXPIRES, Math.floor((COMPLETED + 3_600_000) / 1000));
  });

  test('are signed with the hex HMAC-SHA256 of id.expires', () => {
    assert.equal(SIGNATURE, createHmac('sha256', SECRET).update(`${ID}.${EXPIRES}`).digest('hex'));
    assert.match(SIGNATURE, /^[0-9a-f]{64}$/);
  });

  test('are PUBLIC_URL, the download path, expires and signature', () => {
    assert.equal(
      downloadUrl('https://pay.example.com', SECRET, ID, EXPIRES),
      `https://pay.example.com/api/v1/reports/exports/${ID}/download?expires=${EXPIRES}&signature=${SIGNATURE}`,
    );
    assert.equal(downloadPath(ID), `/api/v1/reports/exports/${ID}/download`);
  });

  test('a valid link verifies until its expiry', () => {
    assert.deepEqual(check({}), { ok: true, expires: EXPIRES });
    assert.deepEqual(check({}, EXPIRES * 1000 - 1), { ok: true, expires: EXPIRES });
  });

  test('a changed id, expires or signature, or another secret, is invalid', () => {
    const invalid = { ok: false, reason: 'invalid' };
    assert.deepEqual(check({ id: 'exp_01JD7ZR3S4T5V6W7X8Y9Z0A1B3' }), invalid);
    assert.deepEqual(check({ expires: String(EXPIRES + 3600) }), invalid);
    assert.deepEqual(check({ expires: `0${EXPIRES}` }), invalid, 'the same number written otherwise');
    assert.deepEqual(check({ expires: 'soon' }), invalid);
    assert.deepEqual(
      check({ signature: `${SIGNATURE.slice(0, -1)}${SIGNATURE.endsWith('0') ? '1' : '0'}` }),
      invalid,
    );
    assert.deepEqual(check({ signature: SIGNATURE.toUpperCase() }), invalid);
    assert.deepEqual(check({ signature: SIGNATURE.slice(0, 32) }), invalid);
    assert.deepEqual(
      verifyDownload(
        'another-secret-entirely-0123456789abcdef',
        { id: ID, expires: String(EXPIRES), signature: SIGNATURE },
        COMPLETED,
      ),
      invalid,
    );
  });

  test('the signature vouches for the expiry whatever the time; the expiry is checked on its own', () => {
    assert.equal(signedExpiry(SECRET, { id: ID, expires: String(EXPIRES), signature: SIGNATURE }), EXPIRES);
    assert.equal(signedExpiry(SECRET, { id: ID, expires: String(EXPIRES - 1), signature: SIGNATURE }), null);
    assert.equal(isExpired(EXPIRES, EXPIRES * 1000 - 1), false);
    assert.equal(isExpired(EXPIRES, EXPIRES * 1000), true);
  });

  test('a valid link past its expiry is expired, and a tampered one stays invalid', () => {
    assert.deepEqual(check({}, EXPIRES * 1000), { ok: false, reason: 'expired', expires: EXPIRES });
    assert.deepEqual(check({}, COMPLETED + 2 * 3_600_000), {
      ok: false,
      reason: 'expired',
      expires: EXPIRES,
    });
    assert.deepEqual(check({ id: 'exp_other' }, COMPLETED + 2 * 3_600_000), { ok: false, reason: 'invalid' });
  });
});
