import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { generateSecret, signatureHeaders } from '../../src/modules/webhooks/signing.js';
import { DELIVERY_BACKOFF_MS, deliveryBackoffMs } from '../../src/modules/webhooks/webhooks.job.js';

describe('generateSecret', () => {
  test('is whsec_ and the base64 of 32 random bytes, different every time', () => {
    const secret = generateSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
    assert.notEqual(generateSecret(), secret);
  });
});

describe('signatureHeaders', () => {
  const secret = generateSecret();
  const body = JSON.stringify({ id: 'evt_1', type: 'customer.created', data: { object: { name: 'Ada' } } });

  test('signs id.timestamp.body with HMAC-SHA256 of the decoded secret (v1,<base64>)', () => {
    const at = new Date('2030-01-02T03:04:05.678Z');
    const headers = signatureHeaders(secret, 'evt_1', at, body);
    assert.equal(headers['webhook-id'], 'evt_1');
    assert.equal(headers['webhook-timestamp'], String(Math.floor(at.getTime() / 1000)));
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key)
      .update(`evt_1.${headers['webhook-timestamp']}.${body}`)
      .digest('base64');
    assert.equal(headers['webhook-signature'], `v1,${expected}`);
  });

  test('verifies with the official Standard Webhooks library', () => {
    const headers = signatureHeaders(secret, 'evt_1', new Date(), body);
    assert.deepEqual(new Webhook(secret).verify(body, { ...headers }), JSON.parse(body));
  });

  test('fails verification for another secret or a changed body', () => {
    const headers = { ...signatureHeaders(secret, 'evt_1', new Date(), body) };
    assert.throws(() => new Webhook(generateSecret()).verify(body, headers));
    assert.throws(() => new Webhook(secret).verify(body.replace('Ada', 'Eve'), headers));
  });
});

describe('deliveryBackoffMs', () => {
  test('spreads 10 attempts over about three days', () => {
    const total = DELIVERY_BACKOFF_MS.reduce((sum, ms) => sum + ms, 0);
    assert.ok(total > 70 * 3_600_000 && total <= 72 * 3_600_000, `total ${total} ms`);
    assert.equal(deliveryBackoffMs(1), 5_000);
    assert.equal(deliveryBackoffMs(2), 5 * 60_000);
    assert.equal(deliveryBackoffMs(9), 20 * 3_600_000);
    assert.equal(deliveryBackoffMs(50), 20 * 3_600_000);
  });
});
