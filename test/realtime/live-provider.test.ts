import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { paytrackJson } from '../../bench/processes.js';
import { type PaystackFake, startPaystackFake } from '../fakes/paystack.js';
import { SECRET_KEY } from '../helpers/live-providers.js';
import { type Api, databaseKinds, expect, type RealServer, startRealServer, until } from './server.js';

// The built server collecting through Paystack (its local fake) in real time: the worker charges a due
// obligation on its own, Paystack answers that the bank debit is in progress, and its webhook, sent over HTTP
// to the webhook URL `provider set` printed, settles it.

// Each database's server runs beside the other's: the tests wait on real time, not on the processor.
describe('a Paystack bank debit in real time, on each database at once', { concurrency: true }, () => {
  for (const kind of databaseKinds) {
    describe(`a Paystack bank debit in real time (${kind})`, () => {
      let server: RealServer;
      let paystack: PaystackFake;
      let api: Api;
      before(async () => {
        paystack = await startPaystackFake();
        server = await startRealServer(kind, {
          PAYTRACK_SECRET_KEY: SECRET_KEY,
          PAYSTACK_API_URL: paystack.url,
        });
        api = await server.newWorkspace('Ade Motors', 'Africa/Lagos');
      });
      after(async () => {
        await server?.stop();
        await paystack?.close();
      });

      test('the worker charges the due obligation, and Paystack’s webhook over HTTP settles it', async () => {
        const workspaceId = (await expect(api.get('/account'), 200)).workspace.id;
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-key-'));
        const keyFile = path.join(dir, 'key');
        fs.writeFileSync(keyFile, paystack.secretKey);
        const setting = await paytrackJson<{ id: string; webhookUrl: string }>(server.env, [
          'provider',
          'set',
          '--workspace',
          workspaceId,
          '--provider',
          'paystack',
          '--mode',
          'test',
          '--secret-key-file',
          keyFile,
          '--rails',
          'debit',
          '--json',
        ]);
        fs.rmSync(dir, { recursive: true, force: true });
        assert.equal(setting.webhookUrl, `${server.baseUrl}/api/v1/provider-webhooks/${setting.id}`);

        const customer = await expect(
          api.post('/customers', { name: 'Amaka Eze', phone: '+2348031234567', email: 'amaka@example.com' }),
          201,
        );
        const plan = await expect(
          api.post('/tracks', { customerId: customer.id, title: 'Generator', amount: 90_000 }),
          201,
        );
        const schedule = await expect(
          api.post('/collection-schedules', {
            target_type: 'payment_plan',
            target_id: plan.id,
            frequency: 'installment_sequence',
            fixed_amount: 30_000,
            start_date: new Date().toISOString(),
            collection_method: 'auto_debit',
          }),
          201,
        );
        const mandate = await expect(
          api.post('/payment-mandates', {
            payer_type: 'customer',
            provider: 'paystack',
            schedule_id: schedule.id,
          }),
          201,
        );

        // The payer approves on our page, authorises on Paystack's, and comes back.
        const page = await (await fetch(mandate.consent_url)).text();
        const formToken = /name="form_token" value="([^"]+)"/.exec(page)?.[1] as string;
        const approved = await (
          await fetch(mandate.consent_url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ decision: 'approve', form_token: formToken }).toString(),
          })
        ).text();
        const hosted = /href="([^"]+)">Continue to Paystack/.exec(approved)?.[1] as string;
        assert.ok(hosted?.startsWith(paystack.url), approved);
        paystack.nextCharge('processing');
        const back = await fetch(hosted, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'action=authorize',
        });
        assert.match(await back.text(), /You approved automatic payments/);

        // Nobody moves a clock: the worker's own sweep charges the obligation due today.
        const processing = await until(
          'the attempt is charged',
          async () => {
            const items = (await expect(api.get(`/collection-attempts?schedule_id=${schedule.id}`), 200))
              .items;
            return items.find(
              (a: { status: string; provider_reference: string | null }) =>
                a.status === 'processing' && a.provider_reference,
            );
          },
          server,
        );
        const webhooks = await paystack.settleDebit(processing.provider_reference, 'success');
        for (const webhook of webhooks) {
          const delivered = await fetch(setting.webhookUrl, {
            method: 'POST',
            headers: webhook.headers,
            body: webhook.body,
          });
          assert.equal(delivered.status, 200, await delivered.text());
        }
        const paid = await expect(api.get(`/collection-attempts/${processing.id}`), 200);
        assert.equal(paid.status, 'succeeded');
        assert.equal((await expect(api.get(`/tracks/${plan.id}`), 200)).balance, 60_000);
      });
    });
  }
});
