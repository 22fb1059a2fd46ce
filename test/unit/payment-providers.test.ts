import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { loadConfig } from '../../src/config.js';
import { simulatedProvider, unavailableProvider } from '../../src/ports/payment-providers.js';
import { createPorts } from '../../src/ports/ports.js';
import { parseStandardNotification } from '../../src/ports/provider-notifications.js';

const charge = (amount: number) =>
  simulatedProvider('gatewayA').charge({ reference: 'att_1', mandateId: 'man_1', amount, currency: 'NGN' });

describe('the test-mode payment provider', () => {
  test('fails amounts ending in 13 as insufficient_funds (retryable) and in 14 as account_closed (final)', async () => {
    assert.deepEqual(await charge(5_013), {
      status: 'failed',
      code: 'insufficient_funds',
      message: 'The simulated account has too little money.',
      retryable: true,
    });
    const closed = await charge(114);
    assert.equal(closed.status, 'failed');
    assert.equal(closed.status === 'failed' && closed.code, 'account_closed');
    assert.equal(closed.status === 'failed' && closed.retryable, false);
  });

  test('property: every other amount succeeds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000_000_000 }).filter((n) => n % 100 !== 13 && n % 100 !== 14),
        async (amount) => {
          const result = await charge(amount);
          assert.equal(result.status, 'succeeded');
        },
      ),
    );
  });

  test('test mode always gets the simulator; live mode without an adapter fails clearly, never silently', async () => {
    const ports = createPorts(loadConfig({ LOG_LEVEL: 'silent' }));
    assert.equal(ports.provider('test', 'gatewayB').simulated, true);
    const live = ports.provider('live', 'gatewayB');
    assert.equal(live.simulated, false);
    const result = await live.charge({
      reference: 'att_1',
      mandateId: 'man_1',
      amount: 100,
      currency: 'NGN',
    });
    assert.equal(result.status, 'failed');
    assert.equal(result.status === 'failed' && result.code, 'provider_unavailable');
    assert.equal(
      await unavailableProvider('x').createMandate({
        mandateId: 'm',
        payerName: 'A',
        amount: 1,
        currency: 'NGN',
      }),
      null,
      'nothing to register with: the mandate rests on the consent alone, and its charges fail clearly',
    );

    const simulated = await ports.messages('test').send({ channel: 'sms', to: '+2348031234567', text: 'Hi' });
    assert.equal(simulated.status, 'simulated');
    const unsent = await ports.messages('live').send({ channel: 'email', to: 'a@example.com', text: 'Hi' });
    assert.equal(unsent.status, 'failed');
    assert.match(unsent.error ?? '', /SMTP_URL/);
  });
});

describe("notifications in paytrack's own form", () => {
  const secret = 'pns_test-secret';
  const body = JSON.stringify({
    id: 'evt_1',
    type: 'charge.succeeded',
    reference: 'att_1',
    amount: 500,
    currency: 'NGN',
    occurred_at: '2028-01-01T00:00:00Z',
  });
  const sign = (text: string) => createHmac('sha256', secret).update(text).digest('hex');

  test('a body signed with the setting secret is read; a changed body, another secret or no signature is refused', () => {
    const read = parseStandardNotification({
      rawBody: body,
      headers: { 'x-provider-signature': sign(body) },
      secret,
    });
    assert.equal(read.ok && read.notification.reference, 'att_1');
    const changed = body.replace('500', '5000');
    for (const [rawBody, headers, key] of [
      [changed, { 'x-provider-signature': sign(body) }, secret],
      [body, { 'x-provider-signature': sign(body) }, 'pns_other'],
      [body, {}, secret],
      [body, { 'x-provider-signature': 'zz' }, secret],
    ] as const) {
      const refused = parseStandardNotification({ rawBody, headers, secret: key });
      assert.equal(refused.ok, false);
      assert.match(refused.ok ? '' : refused.reason, /x-provider-signature/);
    }
    assert.equal(simulatedProvider('gatewayB').parseNotification, parseStandardNotification);
  });
});
