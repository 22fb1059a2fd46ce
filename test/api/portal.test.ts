import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { approvedMandate, newSchedule } from '../helpers/collections.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';
import { pdfText } from '../helpers/pdf.js';
import { type FakeMessageProvider, startMessageProvider } from '../helpers/transports.js';

const NOW = '2028-01-10T09:00:00.000Z';

describe('customer page links', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
  });
  after(() => t.close());

  const open = (url: string, method: 'GET' | 'POST' = 'GET', payload?: string) =>
    t.app.inject({
      method,
      url: new URL(url, 'http://x').pathname + new URL(url, 'http://x').search,
      ...(payload === undefined
        ? {}
        : { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload }),
    });

  async function customerWithPlan(api: Client, name = 'Chioma Eze', title = 'Deep freezer') {
    const customer = await newCustomer(api, { name });
    const plan = await newTrack(api, { customerId: customer.id, title, amount: 90_000 });
    await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 30_000,
      start_date: '2028-01-05T09:00:00Z',
      end_date: '2028-03-05T09:00:00Z',
      collection_method: 'manual',
    });
    return { customer, plan };
  }

  test('a link opens the customer’s own page: plans, instalments, payments with receipts, nothing of another customer', async () => {
    const { api } = await newWorkspace(t);
    const { customer, plan } = await customerWithPlan(api);
    await customerWithPlan(api, 'Bola Ade', 'Generator of another customer');
    const paid = await api.post('/payments', { trackId: plan.id, amount: 20_000, method: 'cash' });
    const made = await api.post(`/customers/${customer.id}/portal-links`, {});
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const link = made.body.data;
    assert.match(link.id, /^cpl_/);
    assert.match(link.url, /\/c\/cp_[A-Za-z0-9_-]{43}$/);
    assert.equal(link.status, 'active');
    assert.equal(link.expiresAt, '2028-02-09T09:00:00.000Z');

    const page = await open(link.url);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.headers['content-security-policy'] as string, /frame-ancestors 'none'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.doesNotMatch(page.body, /<script/);
    for (const text of [
      'Hello, Chioma Eze',
      'Deep freezer',
      '₦700.00',
      '₦200.00',
      paid.body.data.receipt.number,
      'Overdue',
      'Upcoming',
      'Pay now',
    ]) {
      assert.ok(page.body.includes(text), `the page shows ${text}`);
    }
    assert.ok(!page.body.includes('Generator of another customer') && !page.body.includes('Bola Ade'));

    // The link is listed without its URL, which exists in the creation answer alone.
    const listed = await api.get(`/customers/${customer.id}/portal-links`);
    assert.equal(listed.body.data.items[0].id, link.id);
    assert.equal(listed.body.data.items[0].url, null);
    assert.ok(listed.body.data.items[0].lastOpenedAt);
  });

  test('a replay of its Idempotency-Key answers 201 with the same link, and makes none', async () => {
    const { api } = await newWorkspace(t);
    const { customer } = await customerWithPlan(api);
    const key = { 'Idempotency-Key': 'portal-link-once' };
    const first = await api.post(`/customers/${customer.id}/portal-links`, {}, key);
    const again = await api.post(`/customers/${customer.id}/portal-links`, {}, key);
    assert.deepEqual([first.status, again.status], [201, 201], JSON.stringify(again.body));
    assert.deepEqual(again.body.data, first.body.data);
  });

  test('bad requests are named and make nothing', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api, { name: 'Ngozi Ike' });
    const cases: [Record<string, unknown>, number, string][] = [
      [{ expires_at: '2027-01-01T00:00:00Z' }, 422, 'expires_at'],
      [{ expires_at: '2030-01-01T00:00:00Z' }, 422, 'expires_at'],
      [{ expires_at: 'soon' }, 422, 'expires_at'],
      [{ send: 'email' }, 422, 'send'],
      [{ send: 'pigeon' }, 422, 'send'],
      [{ colour: 'red' }, 422, 'colour'],
    ];
    for (const [body, status, field] of cases) {
      const res = await api.post(`/customers/${customer.id}/portal-links`, body);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.ok(JSON.stringify(res.body.error).includes(field), `${JSON.stringify(body)} names ${field}`);
    }
    assert.equal((await api.get(`/customers/${customer.id}/portal-links`)).body.data.items.length, 0);
    assert.equal((await api.get('/reminders')).body.data.items.length, 0);
    const unknown = await api.post('/customers/cus_unknown/portal-links', {});
    assert.equal(unknown.status, 404);
  });

  test('a revoked or expired link shows a clear page and changes nothing; an unknown one is a 404 page', async () => {
    const { api } = await newWorkspace(t);
    const { customer, plan } = await customerWithPlan(api);
    const revokedLink = (await api.post(`/customers/${customer.id}/portal-links`, {})).body.data;
    const revoked = await api.delete(`/portal-links/${revokedLink.id}`);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.data.status, 'revoked');
    assert.equal((await api.delete(`/portal-links/${revokedLink.id}`)).status, 409);
    const shown = await open(revokedLink.url);
    assert.equal(shown.statusCode, 410);
    assert.match(shown.body, /This link was withdrawn/);
    const pay = await open(`${revokedLink.url}/pay`, 'POST', `plan=${plan.id}`);
    assert.equal(pay.statusCode, 410);

    const shortLived = (
      await api.post(`/customers/${customer.id}/portal-links`, { expires_at: '2028-01-11T09:00:00Z' })
    ).body.data;
    assert.equal((await open(shortLived.url)).statusCode, 200);
    await api.post('/account/test-clock/advance', { to: '2028-01-11T09:00:00Z' });
    const expired = await open(shortLived.url);
    assert.equal(expired.statusCode, 410);
    assert.match(expired.body, /This link has expired/);
    const listed = await api.get(`/customers/${customer.id}/portal-links`);
    assert.deepEqual(
      listed.body.data.items.map((l: { status: string }) => l.status),
      ['expired', 'revoked'],
    );
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 90_000);

    for (const url of ['/c/cp_nope', `/c/cp_${'A'.repeat(43)}`, '/c/%E0%A4%A']) {
      const unknown = await open(url);
      assert.equal(unknown.statusCode, 404, url);
      assert.match(unknown.body, /This link is not valid/);
    }
  });

  test('the customer stops their automatic payments: recorded as the payer’s revocation; another customer’s mandate cannot be reached', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api, { name: 'Chioma Eze' });
    const plan = await newTrack(api, { customerId: customer.id, amount: 30_000 });
    const other = { plan: await newTrack(api, { amount: 30_000 }) };
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 10_000,
      start_date: '2028-02-01T09:00:00Z',
      collection_method: 'auto_debit',
    });
    const mandate = await approvedMandate(t, api, schedule.id);
    const otherSchedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: other.plan.id,
      frequency: 'monthly',
      fixed_amount: 10_000,
      start_date: '2028-02-01T09:00:00Z',
      collection_method: 'auto_debit',
    });
    const otherMandate = await approvedMandate(t, api, otherSchedule.id);
    const link = (await api.post(`/customers/${customer.id}/portal-links`, {})).body.data;
    const page = await open(link.url);
    assert.ok(page.body.includes(`/mandates/${mandate.id}`));
    assert.ok(!page.body.includes(otherMandate.id));

    // Opening the page that asks changes nothing; another customer's mandate is not found.
    const asked = await open(`${link.url}/mandates/${mandate.id}`);
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /Stop automatic payments\?/);
    const foreign = await open(`${link.url}/mandates/${otherMandate.id}`, 'POST', '');
    assert.equal(foreign.statusCode, 404);
    assert.equal((await api.get(`/payment-mandates/${otherMandate.id}`)).body.data.status, 'active');
    assert.equal((await api.get(`/payment-mandates/${mandate.id}`)).body.data.status, 'active');

    const stopped = await open(`${link.url}/mandates/${mandate.id}`, 'POST', '');
    assert.equal(stopped.statusCode, 303);
    assert.match(stopped.headers.location as string, /\?notice=mandate_revoked$/);
    const after = (await api.get(`/payment-mandates/${mandate.id}`)).body.data;
    assert.equal(after.status, 'revoked');
    assert.equal(after.revocation_reason, 'Revoked by the payer on their page');
    const audit = await api.get('/audit-log?limit=5');
    const entry = audit.body.data.items.find((e: { action: string }) => e.action.includes('revoke'));
    assert.deepEqual(entry.actor, { type: 'payer', id: customer.id });
    const home = await open(stopped.headers.location as string);
    assert.match(home.body, /Automatic payments stopped/);
  });

  test('pay now: a pay link for what is due, paid through the simulator, recorded once with its receipt', async () => {
    const { api } = await newWorkspace(t);
    const { customer, plan } = await customerWithPlan(api);
    const link = (await api.post(`/customers/${customer.id}/portal-links`, {})).body.data;
    const pressed = await open(`${link.url}/pay`, 'POST', `plan=${plan.id}`);
    assert.equal(pressed.statusCode, 303, pressed.body);
    const payPage = new URL(String(pressed.headers.location)).pathname;
    assert.match(payPage, /^\/pay\//);
    const shown = await open(payPage);
    assert.equal(shown.statusCode, 200);
    // Due now on 10 Jan: the instalment of 5 Jan.
    assert.ok(shown.body.includes('₦300.00'), 'the amount due now');
    const toCheckout = await open(payPage, 'POST', '');
    assert.equal(toCheckout.statusCode, 303, toCheckout.body);
    const checkout = new URL(String(toCheckout.headers.location), 'http://x').pathname;
    const presses = await Promise.all([open(checkout, 'POST', ''), open(checkout, 'POST', '')]);
    assert.ok(presses.every((p) => p.statusCode < 500));
    const payments = (await api.get(`/tracks/${plan.id}/payments`)).body.data.items;
    assert.equal(payments.length, 1);
    assert.equal(payments[0].amount, 30_000);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
    const paid = await open(payPage);
    assert.ok(paid.body.includes(payments[0].receipt.number), 'the paid link shows its receipt');
    const home = await open(link.url);
    assert.ok(home.body.includes(payments[0].receipt.number));
    assert.ok(home.body.includes('₦600.00'));
  });

  test('the statement on the page, and its PDF, hold the figures of the API’s statement', async () => {
    const { api } = await newWorkspace(t);
    const { customer, plan } = await customerWithPlan(api);
    await api.post('/payments', {
      trackId: plan.id,
      amount: 20_000,
      method: 'bank_transfer',
      reference: 'GTB-0091',
    });
    const statement = (await api.get(`/customers/${customer.id}/statement`)).body.data;
    const [ngn] = statement.currencies;
    assert.equal(ngn.closingBalance, 70_000);
    const link = (await api.post(`/customers/${customer.id}/portal-links`, {})).body.data;
    const page = await open(`${link.url}/statement`);
    assert.equal(page.statusCode, 200, page.body);
    for (const text of ['Statement', 'Chioma Eze', '₦700.00', '₦900.00', 'GTB-0091']) {
      assert.ok(page.body.includes(text), `the statement shows ${text}`);
    }
    const pdf = await open(`${link.url}/statement.pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.match(pdf.headers['content-disposition'] as string, /^attachment; filename="statement-/);
    const text = pdfText(pdf.rawPayload);
    for (const shown of ['Chioma Eze', '₦700.00', '₦900.00', '₦200.00', 'GTB-0091']) {
      assert.ok(text.includes(shown), `the PDF shows ${shown}`);
    }
  });

  test('the page cannot change anything else through the API', async () => {
    const { api } = await newWorkspace(t);
    const { customer } = await customerWithPlan(api);
    const link = (await api.post(`/customers/${customer.id}/portal-links`, {})).body.data;
    const forged = await t.app.inject({
      method: 'POST',
      url: `${new URL(link.url).pathname}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      payload: 'plan=trk_x',
    });
    assert.equal(forged.statusCode, 404);
    const notMine = await open(`${link.url}/pay`, 'POST', 'plan=trk_unknown');
    assert.equal(notMine.statusCode, 404);
  });

  test('late fees, a waived fee and written-off instalments in words; a plan closed by a write-off is not called paid in full', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api, { name: 'Chioma Eze' });
    const plan = await newTrack(api, { customerId: customer.id, title: 'Deep freezer', amount: 90_000 });
    await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 30_000,
      start_date: '2028-01-05T09:00:00Z',
      end_date: '2028-03-05T09:00:00Z',
      collection_method: 'manual',
      late_fee: { type: 'fixed', value: 1_000, every_days: 2, grace_days: 0 },
    });
    const paidUp = await newTrack(api, { customerId: customer.id, title: 'Radio', amount: 5_000 });
    await api.post('/payments', { trackId: paidUp.id, amount: 5_000, method: 'cash' });
    assert.equal((await api.post('/account/test-clock/advance', { days: 5 })).status, 200);
    const fees = (await api.get(`/obligations?track_id=${plan.id}&limit=100`)).body.data.items.filter(
      (o: { kind: string }) => o.kind === 'fee',
    );
    assert.ok(fees.length >= 2, JSON.stringify(fees));
    assert.equal((await api.post(`/obligations/${fees[0].id}/waive`, { reason: 'goodwill' })).status, 200);
    await api.post('/payments', { trackId: plan.id, amount: 10_000, method: 'cash' });
    assert.equal(
      (await api.post(`/tracks/${plan.id}/write-off`, { amount: 30_000, reason: 'x' })).status,
      200,
    );
    const link = (await api.post(`/customers/${customer.id}/portal-links`, {})).body.data;

    let page = await open(link.url);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<caption>Instalments and late fees of Deep freezer<\/caption>/);
    assert.match(
      page.body,
      /<td class="nowrap">[^<]+<br><span class="note">Late fee<\/span><\/td><td class="amount">₦10\.00<\/td><td>Waived<\/td>/,
    );
    assert.match(
      page.body,
      /<td class="amount">₦300\.00<\/td><td>Overdue<br><span class="note">₦200\.00 left<\/span><\/td>/,
    );
    assert.match(page.body, /5 Mar 2028<\/td><td class="amount">₦300\.00<\/td><td>Written off<\/td>/);
    assert.match(page.body, /<h2 id="plan-[^"]+">Radio<\/h2>\n<p><strong>Paid in full\.<\/strong>/);
    assert.doesNotMatch(page.body, /wrote off/);

    // Everything left written off: the plan is closed, and the page says how.
    const whole = await api.post(`/tracks/${plan.id}/write-off`, { reason: 'Customer emigrated' });
    assert.equal(whole.body.data.status, 'completed', JSON.stringify(whole.body));
    page = await open(link.url);
    assert.match(
      page.body,
      /<p><strong>Nothing left to pay\.<\/strong> [^<]+ wrote off part of this plan\.<\/p>/,
    );
    assert.equal(page.body.match(/Paid in full/g)?.length, 1, 'only the radio, paid, is paid in full');
    assert.match(page.body, /You owe nothing to /);
  });

  test('a refused promise to pay shows the page again with that plan’s form open and what was typed, escaped', async () => {
    const { api } = await newWorkspace(t);
    const { customer, plan } = await customerWithPlan(api);
    const other = await newTrack(api, { customerId: customer.id, title: 'Generator', amount: 50_000 });
    const link = (await api.post(`/customers/${customer.id}/portal-links`, {})).body.data;
    const path = new URL(link.url).pathname;

    const tooMuch = await open(`${path}/promise`, 'POST', `plan=${plan.id}&amount=901&date=2028-01-25`);
    assert.equal(tooMuch.statusCode, 422);
    assert.match(
      tooMuch.body,
      /<p class="problem" role="alert">Your promise was not recorded: promise at most what you owe, ₦900\.00\.<\/p>/,
    );
    const forms = tooMuch.body.split('<details');
    const mine = forms.find((f) => f.includes(`promise-${plan.id}-amount`)) ?? '';
    const theirs = forms.find((f) => f.includes(`promise-${other.id}-amount`)) ?? '';
    assert.match(mine, /^ open><summary>/);
    assert.match(mine, /name="amount" inputmode="decimal" value="901" required/);
    assert.match(mine, /value="2028-01-25" required/);
    assert.match(theirs, /^><summary>/);
    assert.doesNotMatch(theirs, /value="901"/);

    const unreadable = await open(
      `${path}/promise`,
      'POST',
      `plan=${plan.id}&amount=${encodeURIComponent('"><b>9')}&date=x`,
    );
    assert.equal(unreadable.statusCode, 422);
    assert.match(unreadable.body, /Your promise was not recorded: Enter the amount in figures/);
    assert.match(unreadable.body, /value="&quot;&gt;&lt;b&gt;9"/);
    assert.doesNotMatch(unreadable.body, /<b>9/);
    assert.equal((await api.get('/promises')).body.data.items.length, 0);
  });
});

describe('customer page links sent in messages', () => {
  let t: TestApp;
  let provider: FakeMessageProvider;
  before(async () => {
    provider = await startMessageProvider();
    t = await buildTestApp({
      clock: new ManualClock(new Date('2028-01-20T12:00:00.000Z')),
      env: { MESSAGE_PROVIDER_URL: provider.url, MESSAGE_PROVIDER_API_KEY: 'pk_test', SMS_FROM: 'PAYTRACK' },
    });
  });
  after(async () => {
    await t?.close();
    await provider?.close();
  });

  /** The text of the last SMS the provider was asked to send to `to`. */
  function lastTextTo(to: string): string {
    const sent = provider.requests.filter((r) => JSON.stringify(r.body).includes(to)).at(-1);
    assert.ok(sent, `an SMS to ${to}`);
    const body = sent.body as Record<string, unknown>;
    return String(body.text ?? body.message ?? body.body ?? JSON.stringify(body));
  }
  const linkIn = (text: string) => /https?:\/\/\S+\/c\/cp_[A-Za-z0-9_-]{43}/.exec(text)?.[0];

  test('send: only the customer receives the link, made when the reminder is sent; the API never shows its token', async () => {
    const { live: api } = await newWorkspace(t);
    const customer = await newCustomer(api, { name: 'Emeka Obi' });
    const made = await api.post(`/customers/${customer.id}/portal-links`, { send: 'sms' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.data.url, null);
    const queued = (await api.get(`/reminders?customerId=${customer.id}`)).body.data.items[0];
    assert.equal(queued.id, made.body.data.reminderId);
    assert.match(queued.message, /\{customer_page_link\}/);
    await api.post('/reminders/send', { reminderIds: [queued.id] });
    await t.worker.drain();
    const sent = (await api.get(`/reminders?customerId=${customer.id}`)).body.data.items[0];
    assert.equal(sent.status, 'sent');
    assert.doesNotMatch(JSON.stringify(sent), /cp_[A-Za-z0-9_-]{43}/);
    const url = linkIn(lastTextTo(customer.phone));
    assert.ok(url, 'the SMS carries the link');
    const page = await t.app.inject({ method: 'GET', url: new URL(url).pathname });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Hello, Emeka Obi/);
  });

  test('a link revoked before its reminder went out is not sent', async () => {
    const { live: api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const made = (await api.post(`/customers/${customer.id}/portal-links`, { send: 'sms' })).body.data;
    assert.equal((await api.delete(`/portal-links/${made.id}`)).status, 200);
    const before = provider.requests.length;
    await api.post('/reminders/send', { reminderIds: [made.reminderId] });
    await t.worker.drain();
    const reminder = (await api.get(`/reminders?customerId=${customer.id}`)).body.data.items[0];
    assert.equal(reminder.status, 'cancelled');
    assert.equal(reminder.skipReason, 'link_unavailable');
    assert.equal(provider.requests.length, before);
  });

  test('with customerPage.inReminders, automatic reminders carry a link of their own', async () => {
    const { live: api, workspaceId } = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    const settings = await api.patch('/account', { customerPage: { inReminders: true } });
    assert.deepEqual(settings.body.data.customerPage, { inReminders: true });
    const customer = await newCustomer(api, { name: 'Funke Ade' });
    const plan = await newTrack(api, { customerId: customer.id, amount: 300_000, title: 'Generator' });
    await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 100_000,
      start_date: '2028-01-25T09:00:00Z',
      end_date: '2028-03-25T09:00:00Z',
      collection_method: 'reminder_only',
    });
    t.clock.set(new Date('2028-01-22T07:00:00Z'));
    try {
      await runSweepsNow(t.ctx, { mode: 'live', workspaceId, now: t.clock.now() });
      await t.worker.drain();
    } finally {
      t.clock.set(new Date('2028-01-20T12:00:00.000Z'));
    }
    const text = lastTextTo(customer.phone);
    assert.match(text, /is due in 3 days/);
    const url = linkIn(text);
    assert.ok(url, `the reminder carries a link: ${text}`);
    const page = await t.app.inject({ method: 'GET', url: new URL(url).pathname });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Generator/);
    const reminder = (await api.get(`/reminders?customerId=${customer.id}&source=schedule`)).body.data
      .items[0];
    assert.doesNotMatch(reminder.message, /cp_/);
  });
});
