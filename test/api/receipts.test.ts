import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTrack, newWorkspace } from '../helpers/factories.js';
import { pdfText } from '../helpers/pdf.js';
import { decodeBody, type LocalSmtpServer, startSmtpServer, subjectOf } from '../helpers/transports.js';

describe('receipts', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const page = (path: string) => t.app.inject({ method: 'GET', url: path });

  test('every payment has a receipt: numbered in order, with a code and a public page', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 50_000, title: 'Freezer' });
    const first = await api.post('/payments', {
      trackId: plan.id,
      amount: 20_000,
      method: 'cash',
      reference: 'R1',
    });
    const second = await api.post('/payments', { trackId: plan.id, amount: 5_000, method: 'bank_transfer' });
    assert.equal(first.status, 201);
    const receipt = first.body.data.receipt;
    assert.equal(receipt.number, 'R-000001');
    assert.equal(second.body.data.receipt.number, 'R-000002');
    assert.match(receipt.code, /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    const code = receipt.code.replaceAll('-', '');
    assert.equal(receipt.url, `${t.ctx.config.publicUrl}/r/${code}`);
    assert.deepEqual((await api.get(`/payments/${first.body.data.id}`)).body.data.receipt, receipt);

    const shown = await page(`/r/${code}`);
    assert.equal(shown.statusCode, 200);
    assert.match(shown.headers['content-type'] as string, /text\/html/);
    assert.match(shown.headers['content-security-policy'] as string, /frame-ancestors 'none'/);
    assert.equal(shown.headers['x-frame-options'], 'DENY');
    for (const fact of ['R-000001', '₦200.00', 'Freezer', 'Cash', 'R1', '₦300.00', receipt.code, 'Valid']) {
      assert.ok(shown.body.includes(fact), `the page shows ${fact}`);
    }
    // The code reveals its own receipt only.
    assert.ok(!shown.body.includes('R-000002') && !shown.body.includes('₦50.00'));
    // As a person may type it: lower case, dashes, O for 0.
    const typed = await page(`/r/${receipt.code.toLowerCase().replaceAll('0', 'o')}`);
    assert.equal(typed.statusCode, 200);
    assert.ok(typed.body.includes('R-000001'));
  });

  test('numbers are per workspace and mode, and a refused payment takes none', async () => {
    const a = await newWorkspace(t);
    const b = await newWorkspace(t);
    const planA = await newTrack(a.api, { amount: 100 });
    const planB = await newTrack(b.api, { amount: 100 });
    const livePlan = await newTrack(a.live, { amount: 100 });
    assert.equal(
      (await a.api.post('/payments', { trackId: planA.id, amount: 10 })).body.data.receipt.number,
      'R-000001',
    );
    assert.equal((await a.api.post('/payments', { trackId: planA.id, amount: 1_000 })).status, 422);
    assert.equal(
      (await b.api.post('/payments', { trackId: planB.id, amount: 10 })).body.data.receipt.number,
      'R-000001',
    );
    assert.equal(
      (await a.live.post('/payments', { trackId: livePlan.id, amount: 10 })).body.data.receipt.number,
      'R-000001',
    );
    assert.equal(
      (await a.api.post('/payments', { trackId: planA.id, amount: 10 })).body.data.receipt.number,
      'R-000002',
    );
  });

  test('50 concurrent payments (and 10 refused among them) take receipt numbers 1 to 50 with no gap', async () => {
    const { api } = await newWorkspace(t);
    const plans = await Promise.all(Array.from({ length: 5 }, () => newTrack(api, { amount: 1_000 })));
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        api.post('/payments', { trackId: plans[i % 5]?.id, amount: 100, reference: `C-${i}` }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    assert.equal(created.length, 50);
    const numbers = created.map((r) => Number(r.body.data.receipt.number.slice(2))).sort((x, y) => x - y);
    assert.deepEqual(
      numbers,
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    const codes = new Set(created.map((r) => r.body.data.receipt.code));
    assert.equal(codes.size, 50);
    const next = await api.post('/payments', {
      trackId: (await newTrack(api, { amount: 10 })).id,
      amount: 10,
    });
    assert.equal(next.body.data.receipt.number, 'R-000051');
  });

  test('a reversed payment keeps its number and its page says it no longer counts', async () => {
    const { api } = await newWorkspace(t);
    const plan = await newTrack(api, { amount: 10_000 });
    const paid = await api.post('/payments', { trackId: plan.id, amount: 4_000, method: 'cash' });
    const { receipt } = paid.body.data;
    const reversed = await api.post(`/payments/${paid.body.data.id}/reverse`, { reason: 'bounced cheque' });
    assert.equal(reversed.status, 200);
    assert.deepEqual(reversed.body.data.receipt, receipt);
    const shown = await page(`/r/${receipt.code}`);
    assert.equal(shown.statusCode, 200);
    assert.match(
      shown.body,
      /Reversed on [^:]+ \(bounced cheque\): Test workspace no longer counts this payment/,
    );
    assert.ok(!shown.body.includes('Valid:'));
    const again = await api.post('/payments', { trackId: plan.id, amount: 4_000 });
    assert.equal(again.body.data.receipt.number, 'R-000002');
  });

  test('the receipt as PDF, through the API and its public page, holds its figures; a reversed one says so', async () => {
    const { api, testKey } = await newWorkspace(t, { currency: 'GHS' });
    const plan = await newTrack(api, { amount: 120_000, title: 'Tricycle' });
    const paid = (
      await api.post('/payments', {
        trackId: plan.id,
        amount: 45_000,
        method: 'mobile_money',
        reference: 'MTN-7781',
      })
    ).body.data;
    const viaApi = await t.app.inject({
      method: 'GET',
      url: `/api/v1/payments/${paid.id}/receipt`,
      headers: { authorization: `Bearer ${testKey}` },
    });
    assert.equal(viaApi.statusCode, 200);
    assert.equal(viaApi.headers['content-type'], 'application/pdf');
    assert.equal(viaApi.headers['content-disposition'], 'attachment; filename="receipt-R-000001.pdf"');
    const text = pdfText(viaApi.rawPayload);
    for (const shown of [
      'Receipt',
      'R-000001',
      'GH₵450.00',
      'GH₵750.00',
      'Tricycle',
      'Mobile money',
      'MTN-7781',
      paid.receipt.code,
      paid.receipt.url,
      'Valid: Test workspace recorded this payment.',
    ]) {
      assert.ok(text.includes(shown), `the PDF shows ${shown}: ${text}`);
    }
    await api.post(`/payments/${paid.id}/reverse`, { reason: 'bounced' });
    const again = await t.app.inject({ method: 'GET', url: `${new URL(paid.receipt.url).pathname}/pdf` });
    assert.equal(again.statusCode, 200);
    assert.match(
      pdfText(again.rawPayload).replace(/\s+/g, ' '),
      /Reversed on .+ \(bounced\): Test workspace no longer counts this payment/,
    );
    const missing = await api.get('/payments/pay_unknown/receipt');
    assert.equal(missing.status, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: '/r/0000-0000-0000/pdf' })).statusCode, 404);
  });

  test('a code no receipt has, or text no code has, is a clear 404 page', async () => {
    for (const path of ['/r/0000-0000-0000', '/r/not-a-code', '/r/%E0%A4%A', '/r/']) {
      const shown = await page(path);
      assert.equal(shown.statusCode, 404, path);
      assert.match(shown.headers['content-type'] as string, /text\/html/);
      assert.match(shown.body, /Receipt not found/);
    }
  });

  test('with receipts.send on, each new receipt goes to its customer on the first channel they can be reached on', async () => {
    const { api } = await newWorkspace(t);
    const settings = await api.patch('/account', { receipts: { send: true, channels: ['whatsapp', 'sms'] } });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    assert.deepEqual(settings.body.data.receipts, { send: true, channels: ['whatsapp', 'sms'] });
    const plan = await newTrack(api, { amount: 50_000, title: 'Deep freezer' });
    const paid = (await api.post('/payments', { trackId: plan.id, amount: 20_000 })).body.data;
    await t.worker.drain();
    const reminders = (await api.get(`/reminders?customerId=${plan.customerId}`)).body.data.items;
    assert.equal(reminders.length, 1);
    const [sent] = reminders;
    assert.equal(sent.source, 'receipt');
    assert.equal(sent.paymentId, paid.id);
    assert.equal(sent.channel, 'whatsapp');
    assert.equal(sent.status, 'sent');
    assert.match(
      sent.message,
      /receipt R-000001\. ₦200\.00 received on .+ for Deep freezer\. Left to pay: ₦300\.00\. Check it: http/,
    );
    assert.ok(sent.message.includes(paid.receipt.url));
    const logs = (await api.get(`/reminders/logs?reminderId=${sent.id}`)).body.data.items;
    assert.equal(logs[0].status, 'simulated');

    // Off (the default for a new workspace, and after null): no message.
    assert.equal((await api.patch('/account', { receipts: null })).body.data.receipts.send, false);
    await api.post('/payments', { trackId: plan.id, amount: 1_000 });
    await t.worker.drain();
    assert.equal((await api.get(`/reminders?customerId=${plan.customerId}`)).body.data.items.length, 1);
    const bad = await api.patch('/account', { receipts: { channels: ['fax'] } });
    assert.equal(bad.status, 422);
    assert.ok(JSON.stringify(bad.body.error).includes('receipts'));
  });

  test('the page is rate-limited per address', async () => {
    const codes = Array.from({ length: 31 }, () => page('/r/0000-0000-0001'));
    const answers = await Promise.all(codes);
    // Earlier tests in this file spent some of the minute's allowance; whatever is left runs out here.
    assert.ok(answers.some((a) => a.statusCode === 429));
  });
});

describe('receipts by e-mail', () => {
  let t: TestApp;
  let smtp: LocalSmtpServer;
  before(async () => {
    smtp = await startSmtpServer();
    t = await buildTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'paytrack <no-reply@paytrack.test>' } });
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  test('an e-mailed receipt carries its PDF, whose text is the receipt', async () => {
    const { live } = await newWorkspace(t);
    await live.patch('/account', { receipts: { send: true, channels: ['email', 'sms'] } });
    const customer = (
      await live.post('/customers', {
        name: 'Kofi Mensah',
        phone: '+233241234567',
        email: 'kofi@example.com',
      })
    ).body.data;
    const plan = await newTrack(live, { customerId: customer.id, amount: 80_000, title: 'Phone' });
    const paid = (await live.post('/payments', { trackId: plan.id, amount: 20_000, method: 'cash' })).body
      .data;
    const before = smtp.received.length;
    await t.worker.drain();
    const mails = smtp.received.slice(before);
    assert.equal(mails.length, 1);
    assert.deepEqual(mails[0]?.recipients, ['kofi@example.com']);
    const raw = mails[0]?.raw ?? '';
    assert.match(subjectOf(decodeBody(raw).headers), /Receipt R-000001 from Test workspace/);
    const part =
      /Content-Type: application\/pdf; name=receipt-R-000001\.pdf\r?\n(?:[^\r\n]+\r?\n)*\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(
        raw,
      );
    assert.ok(part?.[1], 'the PDF is attached');
    const text = pdfText(Buffer.from(part[1].replace(/\s+/g, ''), 'base64'));
    for (const shown of ['R-000001', '₦200.00', 'Kofi Mensah', 'Phone', paid.receipt.code]) {
      assert.ok(text.includes(shown), `the attached PDF shows ${shown}`);
    }
    const [sent] = (await live.get(`/reminders?customerId=${customer.id}`)).body.data.items;
    assert.equal(sent.channel, 'email');
    assert.equal(sent.status, 'sent');
  });
});
