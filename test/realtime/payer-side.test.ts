/**
 * The payer's side on the built server in real time, on each database: a receipt goes to the customer on its own
 * within seconds of the payment, and links (the customer's page, a pay link) stop working at the instant they
 * expire, with a clear page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { killChildren } from '../../bench/processes.js';
import { type Api, databaseKinds, expect, type RealServer, startRealServer, until } from './server.js';

process.once('exit', killChildren);

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

describe('the payer side in real time, on each database at once', { concurrency: true }, () => {
  for (const kind of databaseKinds) {
    describe(`the payer side in real time (${kind})`, () => {
      let server: RealServer;
      let api: Api;
      before(async () => {
        server = await startRealServer(kind);
        api = await server.newWorkspace('Ade Motors', 'Africa/Lagos');
      });
      after(() => server?.stop());

      test('with receipts.send on, the receipt reaches the customer within seconds, and its page verifies it', async () => {
        await expect(api.patch('/account', { receipts: { send: true, channels: ['sms'] } }), 200);
        const customer = await expect(
          api.post('/customers', { name: 'Amaka Eze', phone: '+2348031234567' }),
          201,
        );
        const plan = await expect(
          api.post('/tracks', { customerId: customer.id, title: 'Deep freezer', amount: 90_000 }),
          201,
        );
        const paid = await expect(api.post('/payments', { trackId: plan.id, amount: 30_000 }), 201);
        const started = Date.now();
        const sent = await until(
          'the receipt is sent',
          async () => {
            const items = (await expect(api.get(`/reminders?customerId=${customer.id}`), 200)).items;
            return items.find(
              (r: { source: string; status: string }) => r.source === 'receipt' && r.status === 'sent',
            );
          },
          server,
          60_000,
        );
        assert.ok(Date.now() - started < 30_000, `sent ${Date.now() - started} ms after the payment`);
        assert.ok(sent.message.includes(paid.receipt.url));
        const page = await fetch(paid.receipt.url);
        assert.equal(page.status, 200);
        assert.match(await page.text(), /Valid: Ade Motors recorded this payment\./);
      });

      test('a customer page link and a pay link stop at the instant they expire', async () => {
        const customer = await expect(
          api.post('/customers', { name: 'Bola Ade', phone: '+2348097654321' }),
          201,
        );
        const plan = await expect(
          api.post('/tracks', { customerId: customer.id, title: 'Generator', amount: 40_000 }),
          201,
        );
        const expiresAt = inSeconds(5);
        const page = await expect(
          api.post(`/customers/${customer.id}/portal-links`, { expires_at: expiresAt }),
          201,
        );
        const pay = await expect(api.post(`/tracks/${plan.id}/pay-links`, { expires_at: expiresAt }), 201);
        assert.equal((await fetch(page.url)).status, 200);
        assert.equal((await fetch(pay.url)).status, 200);
        await until(
          'the customer page link expires',
          async () => ((await fetch(page.url)).status === 410 ? true : undefined),
          server,
          30_000,
        );
        assert.ok(Date.now() >= Date.parse(expiresAt), 'not before its time');
        assert.match(await (await fetch(page.url)).text(), /This link has expired/);
        const payPage = await fetch(pay.url);
        assert.equal(payPage.status, 410);
        const paid = await fetch(pay.url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: '',
          redirect: 'manual',
        });
        assert.equal(paid.status, 410);
        assert.equal((await expect(api.get(`/tracks/${plan.id}`), 200)).balance, 40_000);
        const links = (await expect(api.get(`/customers/${customer.id}/portal-links`), 200)).items;
        assert.equal(links[0].status, 'expired');
        assert.equal((await expect(api.get(`/pay-links/${pay.id}`), 200)).status, 'expired');
      });
    });
  }
});
