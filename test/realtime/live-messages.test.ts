import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { paytrackJson } from '../../bench/processes.js';
import { startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
import { SECRET_KEY } from '../helpers/live-providers.js';
import { type Api, databaseKinds, expect, type RealServer, startRealServer, until } from './server.js';

// The built server texting through Twilio (its local fake) in real time: a send whose answer never came is
// tried again by the worker a minute later, which asks Twilio first and finds the message, so the customer gets
// it once; Twilio's receipt, sent over HTTP to the callback URL, marks it delivered.

// Each database's server runs beside the other's: the tests wait on real time, not on the processor.
describe('an SMS through Twilio in real time, on each database at once', { concurrency: true }, () => {
  for (const kind of databaseKinds) {
    describe(`an SMS through Twilio in real time (${kind})`, () => {
      let server: RealServer;
      let twilio: TwilioFake;
      let api: Api;
      before(async () => {
        twilio = await startTwilioFake();
        server = await startRealServer(kind, {
          PAYTRACK_SECRET_KEY: SECRET_KEY,
          TWILIO_API_URL: twilio.url,
          PROVIDER_TIMEOUT_MS: '500',
        });
        api = await server.newWorkspace('Mama Put Stores', 'Africa/Lagos');
      });
      after(async () => {
        await server?.stop();
        await twilio?.close();
      });

      test('a timed-out send is retried a minute later without a second message, then delivered', async () => {
        const workspaceId = (await expect(api.get('/account'), 200)).workspace.id;
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-creds-'));
        const file = path.join(dir, 'twilio.json');
        fs.writeFileSync(
          file,
          JSON.stringify({ accountSid: twilio.accountSid, authToken: twilio.authToken }),
        );
        const setting = await paytrackJson<{ callbackUrl: string }>(server.env, [
          'messages',
          'set',
          '--workspace',
          workspaceId,
          '--provider',
          'twilio',
          '--mode',
          'test',
          '--credentials-file',
          file,
          '--sms-from',
          twilio.smsFrom,
          '--json',
        ]);
        fs.rmSync(dir, { recursive: true, force: true });

        const customer = await expect(
          api.post('/customers', { name: 'Ada Obi', phone: '+2348031234567' }),
          201,
        );
        twilio.nextSend('timeout');
        const reminder = await expect(
          api.post('/reminders', { customerId: customer.id, channel: 'sms', message: 'Due on Friday' }),
          202,
        );
        const logs = async () =>
          (await expect(api.get(`/reminders/logs?reminderId=${reminder.id}`), 200)).items as {
            status: string;
            providerMessageId: string | null;
          }[];
        await until(
          'the first try fails on the timeout',
          async () => ((await logs()).some((l) => l.status === 'failed') ? true : undefined),
          server,
        );
        assert.equal(twilio.sent.length, 1, 'Twilio has the message all the same');
        // Nobody moves a clock: the worker tries again a minute later.
        const sent = await until(
          'the retry',
          async () => (await logs()).find((l) => l.status === 'sent'),
          server,
        );
        assert.equal(sent.providerMessageId, twilio.sent[0]?.sid);
        assert.equal(twilio.sent.length, 1, 'no second message');

        const receipt = await twilio.deliver(sent.providerMessageId as string, 'delivered');
        const delivered = await fetch(setting.callbackUrl, {
          method: 'POST',
          headers: receipt.headers,
          body: receipt.body,
        });
        assert.equal(delivered.status, 200, await delivered.text());
        assert.ok((await logs()).some((l) => l.status === 'delivered'));
      });
    });
  }
});
