import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { type PaystackFake, startPaystackFake } from '../fakes/paystack.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { setBusiness } from '../helpers/business.js';
import { newSchedule } from '../helpers/collections.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import {
  continueLinkOf,
  deliver,
  liveProviderApp,
  payerAddress,
  setProviderKey,
} from '../helpers/live-providers.js';
import { notification, notify, providerSetting } from '../helpers/providers.js';

// Pay links: a plan's amount offered to its payer at PUBLIC_URL/pay/<token>, paid through the workspace's
// checkout provider (test mode: the simulator's checkout page), recorded once on the plan.

const NOW = '2028-01-20T12:00:00.000Z';
const DAY_MS = 86_400_000;

type Row = Record<string, any>;

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const CONTACT =
  '<ul class="contact"><li>E-mail: <a href="mailto:help@ademotors.ng">help@ademotors.ng</a></li><li>Phone: <a href="tel:+2348031234567">+234 803 123 4567</a></li></ul>';

/** A Lagos business, Ade Motors, with its contact and colour. */
async function adeMotors() {
  const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await setBusiness(t, ws.workspaceId, {
    name: 'Ade Motors',
    support_email: 'help@ademotors.ng',
    support_phone: '+2348031234567',
    brand_color: '#0b6e4f',
  });
  return ws;
}

/**
 * A freezer of ₦450.00 sold to Chinedu Okafor in three monthly instalments of ₦150.00 due 10 Dec, 10 Jan and
 * 10 Feb: on 20 Jan two are due (₦300.00), the next falls due on 10 Feb.
 */
async function freezerPlan(api: Client, start = '2027-12-10T09:00:00Z') {
  const customer = await newCustomer(api, { name: 'Chinedu Okafor', email: 'chinedu@example.com' });
  const plan = await newTrack(api, {
    customerId: customer.id,
    amount: 45_000,
    title: 'Freezer',
    installments: 3,
  });
  const schedule = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'installment_sequence',
    fixed_amount: 15_000,
    start_date: start,
  });
  return { customer, plan, schedule };
}

async function createLink(api: Client, planId: string, body: Record<string, unknown> = {}) {
  const res = await api.post(`/tracks/${planId}/pay-links`, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as Row;
}

const pathOf = (url: string) => new URL(url).pathname;
const tokenOf = (url: string) => pathOf(url).split('/').pop() as string;

function openPage(path: string, remoteAddress: string) {
  return t.app.inject({ method: 'GET', url: path, remoteAddress });
}

function postForm(
  path: string,
  remoteAddress: string,
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method: 'POST',
    url: path,
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** Presses Pay on the link's page: the address of the checkout page it sends the payer to. */
async function startCheckout(link: Row, address: string, fields: Record<string, string> = {}) {
  const res = await postForm(pathOf(link.url), address, fields);
  assert.equal(res.statusCode, 303, res.body);
  const location = String(res.headers.location);
  assert.match(pathOf(location), /^\/checkout\/chk_[A-Za-z0-9_-]{22}$/);
  return pathOf(location);
}

async function paymentsOf(api: Client, planId: string): Promise<Row[]> {
  const res = await api.get(`/payments?trackId=${planId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items;
}

async function obligationsOf(api: Client, scheduleId: string): Promise<Row[]> {
  return [...(await api.get(`/collection-schedules/${scheduleId}/obligations`)).body.data.items].reverse();
}

const planOf = async (api: Client, id: string) => (await api.get(`/tracks/${id}`)).body.data;
const linkOf = async (api: Client, id: string) => (await api.get(`/pay-links/${id}`)).body.data;
const eventsOf = async (api: Client, type: string) =>
  (await api.get(`/events?type=${type}&limit=100`)).body.data.items as Row[];

function assertSays(html: string, said: string[]) {
  for (const text of said) assert.ok(html.includes(text), `the page says ${text}\n${html}`);
}

function assertNotFramed(headers: Record<string, unknown>) {
  assert.equal(headers['x-frame-options'], 'DENY');
  assert.match(String(headers['content-security-policy']), /frame-ancestors 'none'/);
  assert.equal(headers['cache-control'], 'no-store');
}

describe('POST /tracks/{id}/pay-links', () => {
  test('defaults to what is due now; the url is answered once and only its token hash is kept', async () => {
    const { api } = await adeMotors();
    const { plan } = await freezerPlan(api);
    const res = await api.post(`/tracks/${plan.id}/pay-links`, {});
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const link = res.body.data;
    assert.match(link.id, /^pl_[0-9A-Z]{26}$/);
    assert.match(link.url, /^http:\/\/localhost:3000\/pay\/[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(
      { ...link, id: undefined, url: undefined },
      {
        id: undefined,
        url: undefined,
        trackId: plan.id,
        customerId: plan.customerId,
        amount: 30_000,
        minAmount: 30_000,
        currency: 'NGN',
        status: 'active',
        expiresAt: new Date(Date.parse(NOW) + 30 * DAY_MS).toISOString(),
        createdAt: NOW,
        paidAt: null,
        amountPaid: null,
        paymentId: null,
        revokedAt: null,
      },
    );
    const read = await linkOf(api, link.id);
    assert.deepEqual(read, { ...link, url: null });
    const list = (await api.get(`/tracks/${plan.id}/pay-links`)).body.data;
    assert.deepEqual(list.items, [{ ...link, url: null }]);
    assert.equal(list.has_more, false);

    const token = tokenOf(link.url);
    const row = await t.ctx.db
      .selectFrom('pay_links')
      .selectAll()
      .where('id', '=', link.id)
      .executeTakeFirst();
    assert.equal(row?.token_hash, createHash('sha256').update(token).digest('hex'));
    assert.ok(!JSON.stringify(row).includes(token), 'the token itself is not stored');

    const [created] = await eventsOf(api, 'pay_link.created');
    assert.equal(created?.data.object.id, link.id);
    assert.equal(created?.data.object.url, null);
    const audit = (await api.get(`/audit-log?record_id=${link.id}`)).body.data.items;
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0].record, { type: 'payLink', id: link.id });
    assert.equal(audit[0].action, 'tracks.pay-links');
    assert.ok(!JSON.stringify(audit).includes(token));
  });

  test('what is due now counts what was paid; else the next instalment; else the balance', async () => {
    const { api } = await adeMotors();
    const { plan } = await freezerPlan(api);
    await newPayment(api, plan.id, { amount: 5_000 });
    assert.equal((await createLink(api, plan.id)).amount, 25_000);

    const { plan: later } = await freezerPlan(api, '2028-02-10T09:00:00Z');
    assert.equal((await createLink(api, later.id)).amount, 15_000);

    const plain = await newTrack(api, { amount: 70_000 });
    await newPayment(api, plain.id, { amount: 20_000 });
    const link = await createLink(api, plain.id, { minAmount: 10_000, expires_at: '2028-02-01T00:00:00Z' });
    assert.deepEqual(
      [link.amount, link.minAmount, link.expiresAt],
      [50_000, 10_000, '2028-02-01T00:00:00.000Z'],
    );
    const camel = await createLink(api, plain.id, { amount: 50_000, expiresAt: '2028-04-19T12:00:00+00:00' });
    assert.equal(camel.expiresAt, '2028-04-19T12:00:00.000Z');
  });

  test('a replay of its Idempotency-Key answers 201 with the same link, and makes none', async () => {
    const { api } = await adeMotors();
    const plan = await newTrack(api, { amount: 70_000 });
    const key = { 'Idempotency-Key': 'pay-link-once' };
    const first = await api.post(`/tracks/${plan.id}/pay-links`, {}, key);
    const again = await api.post(`/tracks/${plan.id}/pay-links`, {}, key);
    assert.deepEqual([first.status, again.status], [201, 201], JSON.stringify(again.body));
    assert.deepEqual(again.body.data, first.body.data);
  });

  test('every bad input is refused, named, and nothing is made', async () => {
    const { api, workspaceId, live: liveKey } = await adeMotors();
    const { plan } = await freezerPlan(api);
    const soon = new Date(Date.parse(NOW) + 91 * DAY_MS).toISOString();
    const cases: [Record<string, unknown>, string][] = [
      [{ amount: 0 }, 'amount'],
      [{ amount: -5 }, 'amount'],
      [{ amount: 1.5 }, 'amount'],
      [{ amount: 45_001 }, 'amount'],
      [{ amount: 10_000, minAmount: 10_001 }, 'minAmount'],
      // Over the default amount: what is due now, ₦300.00.
      [{ minAmount: 30_001 }, 'minAmount'],
      [{ minAmount: 0 }, 'minAmount'],
      [{ expires_at: '2028-01-20T11:59:59Z' }, 'expires_at'],
      [{ expires_at: NOW }, 'expires_at'],
      [{ expires_at: soon }, 'expires_at'],
      [{ expiresAt: soon }, 'expiresAt'],
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ expires_at: '2028-02-01T00:00:00Z', expiresAt: '2028-02-01T00:00:00Z' }, 'expiresAt'],
      [{ amout: 100 }, 'amout'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post(`/tracks/${plan.id}/pay-links`, body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'validation_error');
      assert.ok(
        res.body.error.details.fields[field],
        `${JSON.stringify(body)} names ${field}: ${JSON.stringify(res.body)}`,
      );
    }
    const over = await api.post(`/tracks/${plan.id}/pay-links`, { amount: 45_001 });
    assert.match(over.body.error.details.fields.amount, /balance, 45000 \(₦450\.00\)/);

    const unknown = await api.post('/tracks/trk_01JD7Z8X1Y2Z3A4B5C6D7E8F9G/pay-links', {});
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not_found');
    const other = await newWorkspace(t);
    assert.equal((await other.api.post(`/tracks/${plan.id}/pay-links`, {})).status, 404);
    assert.equal((await liveKey.post(`/tracks/${plan.id}/pay-links`, {})).status, 404);
    const reader = await newKey(t, workspaceId, { scopes: ['tracks:read'] });
    const refused = await reader.api.post(`/tracks/${plan.id}/pay-links`, {});
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.details.required_scope, 'tracks:write');

    const done = await newTrack(api, { amount: 10_000 });
    await newPayment(api, done.id, { amount: 10_000 });
    const completed = await api.post(`/tracks/${done.id}/pay-links`, {});
    assert.equal(completed.status, 409);
    assert.deepEqual(completed.body.error.details, { status: 'completed', action: 'create_pay_link' });
    const archived = await newTrack(api, { amount: 10_000 });
    assert.equal((await api.delete(`/tracks/${archived.id}`)).status, 200);
    const closed = await api.post(`/tracks/${archived.id}/pay-links`, {});
    assert.equal(closed.status, 409);
    assert.equal(closed.body.error.details.status, 'archived');

    for (const id of [plan.id, done.id, archived.id]) {
      assert.equal((await api.get(`/tracks/${id}/pay-links`)).body.data.items.length, 0);
    }
    assert.equal((await eventsOf(api, 'pay_link.created')).length, 0);
    assert.equal((await api.get('/tracks/trk_01JD7Z8X1Y2Z3A4B5C6D7E8F9G/pay-links')).status, 404);
  });
});

describe('the pay link page', () => {
  test("shows the business, what is paid for, the payer's first name and the amount; nothing of another customer", async () => {
    const { api } = await adeMotors();
    const { plan } = await freezerPlan(api);
    const neighbour = await newCustomer(api, { name: 'Ngozi Adeyemi', email: 'ngozi@example.com' });
    await newTrack(api, { customerId: neighbour.id, amount: 99_000, title: 'Generator' });
    const link = await createLink(api, plan.id);
    const page = await openPage(pathOf(link.url), payerAddress());
    assert.equal(page.statusCode, 200, page.body);
    assertNotFramed(page.headers);
    assertSays(page.body, [
      '<header class="masthead">Ade Motors</header>',
      '<h1>Pay Ade Motors</h1>',
      '<p class="note">Test mode: no money moves.</p>',
      '<dt>For</dt><dd>Freezer</dd><dt>Customer</dt><dd>Chinedu</dd><dt>Paid to</dt><dd>Ade Motors</dd><dt>Amount</dt><dd><strong>₦300.00</strong></dd>',
      '<form method="post"><div class="actions"><button class="approve" type="submit">Pay ₦300.00</button></div></form>',
      '<p class="note">This link works until 19 Feb 2028, 13:00 (Lagos time).</p>',
      `<p>Questions about this payment? Contact Ade Motors:</p>${CONTACT}`,
    ]);
    assert.match(page.body, /\.masthead, \.approve \{ background: #0b6e4f;/);
    for (const secret of [
      'Okafor',
      'chinedu@example.com',
      'Ngozi',
      'Adeyemi',
      'Generator',
      '990.00',
      plan.customerId,
      plan.id,
    ]) {
      assert.ok(!page.body.includes(secret), `the page shows nothing of ${secret}`);
    }
    assert.doesNotMatch(page.body, /<script/);
  });

  test('an amount the payer may choose: a field with its bounds, up to the balance', async () => {
    const { api } = await adeMotors();
    const { plan } = await freezerPlan(api);
    const link = await createLink(api, plan.id, { amount: 15_000, minAmount: 5_000 });
    const page = await openPage(pathOf(link.url), payerAddress());
    assert.equal(page.statusCode, 200);
    assertSays(page.body, [
      '<label for="amount">Amount to pay, in NGN</label>',
      '<p class="note" id="amount-hint">Any amount from ₦50.00 to ₦450.00; ₦150.00 is asked.</p>',
      'value="150.00" aria-describedby="amount-hint"',
      '<button class="approve" type="submit">Pay</button>',
    ]);
  });

  test('one address may open pay link pages 30 times a minute; then a clear page (429), other addresses unaffected', async () => {
    const { api } = await adeMotors();
    const link = await createLink(api, (await freezerPlan(api)).plan.id);
    const address = payerAddress();
    for (let i = 0; i < 30; i++) assert.equal((await openPage(pathOf(link.url), address)).statusCode, 200);
    const limited = await openPage(pathOf(link.url), address);
    assert.equal(limited.statusCode, 429);
    assertNotFramed(limited.headers);
    assertSays(limited.body, ['<h1>Too many requests</h1>', 'Nothing was paid. Wait a minute']);
    assert.equal((await postForm(pathOf(link.url), address)).statusCode, 429);
    assert.equal((await openPage(pathOf(link.url), payerAddress())).statusCode, 200);
  });

  test('an unknown or malformed token is a neutral 404 page', async () => {
    const { api } = await adeMotors();
    await createLink(api, (await freezerPlan(api)).plan.id);
    for (const path of [
      `/pay/${'A'.repeat(32)}`,
      '/pay/short',
      `/pay/${'A'.repeat(33)}`,
      '/pay/%E0%A4%A',
      '/pay/',
    ]) {
      const page = await openPage(path, payerAddress());
      assert.equal(page.statusCode, 404, `${path}: ${page.body}`);
      assert.match(page.body, /This payment link is not valid/);
      assert.doesNotMatch(page.body, /Ade Motors|masthead"/);
      assertNotFramed(page.headers);
    }
    const posted = await postForm(`/pay/${'A'.repeat(32)}`, payerAddress());
    assert.equal(posted.statusCode, 404);
  });
});

describe('paying a pay link through the test simulator', () => {
  test('five presses of the simulator, one after another, record one payment, allocated; the link is paid', async () => {
    const { api } = await adeMotors();
    const { plan, schedule } = await freezerPlan(api);
    const link = await createLink(api, plan.id);
    const address = payerAddress();
    const checkout = await startCheckout(link, address);
    const shown = await openPage(checkout, address);
    assert.equal(shown.statusCode, 200, shown.body);
    assertNotFramed(shown.headers);
    assertSays(shown.body, [
      '<h1>Pay Ade Motors</h1>',
      '<p class="note">Test mode: no money moves.</p>',
      '<dt>For</dt><dd>Freezer</dd><dt>Customer</dt><dd>Chinedu</dd><dt>Paid to</dt><dd>Ade Motors</dd><dt>Amount</dt><dd><strong>₦300.00</strong></dd>',
      'Pay ₦300.00</button>',
    ]);
    assert.equal(
      (await paymentsOf(api, plan.id)).length,
      0,
      'nothing is recorded before the provider says so',
    );

    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await postForm(checkout, address));
    assert.equal(answers[0]?.statusCode, 200);
    assertSays(answers[0]?.body ?? '', [
      '<h1>Paid</h1>',
      'Thank you: your payment of <strong>₦300.00</strong> is recorded.',
    ]);
    for (const again of answers.slice(1)) {
      assert.equal(again.statusCode, 200);
      assert.match(again.body, /<h1>Already paid<\/h1>/);
    }

    const payments = await paymentsOf(api, plan.id);
    assert.equal(payments.length, 1);
    const [payment] = payments as [Row];
    assert.deepEqual(
      [payment.amount, payment.method, payment.source, payment.metadata.payLinkId],
      [30_000, 'gateway_checkout', 'provider', link.id],
    );
    const afterPay = await planOf(api, plan.id);
    assert.equal(afterPay.balance, 45_000 - 30_000);
    const obligations = await obligationsOf(api, schedule.id);
    assert.deepEqual(
      obligations.map((o) => [o.due_date, o.status, o.amount_paid]),
      [
        ['2027-12-10', 'paid', 15_000],
        ['2028-01-10', 'paid', 15_000],
        ['2028-02-10', 'pending', 0],
      ],
    );
    assert.deepEqual(
      payment.allocations.map((a: Row) => a.amount),
      [15_000, 15_000],
    );

    const paid = await linkOf(api, link.id);
    assert.deepEqual(
      [paid.status, paid.paymentId, paid.amountPaid, paid.paidAt],
      ['paid', payment.id, 30_000, NOW],
    );
    assert.equal((await eventsOf(api, 'pay_link.paid')).length, 1);
    const page = await openPage(pathOf(link.url), address);
    assert.equal(page.statusCode, 200);
    assertSays(page.body, [
      '<h1>Paid</h1>',
      '<p>This link was paid: <strong>₦300.00</strong> to Ade Motors on Thursday 20 January 2028. Thank you. Nothing more is asked on it.</p>',
    ]);
    assert.doesNotMatch(page.body, /<button/);
    const pressed = await postForm(pathOf(link.url), address);
    assert.equal(pressed.statusCode, 200);
    assert.match(pressed.body, /<h1>Paid<\/h1>/);
    assert.equal((await paymentsOf(api, plan.id)).length, 1);
    assert.equal((await api.delete(`/pay-links/${link.id}`)).body.error.details.status, 'paid');
  });

  test('five presses at once, on two checkouts of one link, record one payment', async () => {
    const { api } = await adeMotors();
    const { plan } = await freezerPlan(api);
    const link = await createLink(api, plan.id, { amount: 15_000 });
    const address = payerAddress();
    // A double press of the link's Pay button: two checkouts.
    const [first, second] = await Promise.all([startCheckout(link, address), startCheckout(link, address)]);
    assert.notEqual(first, second);
    const presses = await Promise.all(
      [first, second, first, second, first].map((path) => postForm(path as string, address)),
    );
    assert.equal(
      presses.filter((p) => /<h1>Paid<\/h1>/.test(p.body)).length,
      1,
      presses.map((p) => p.body).join('\n'),
    );
    const payments = await paymentsOf(api, plan.id);
    assert.equal(payments.length, 1);
    assert.equal(payments[0]?.amount, 15_000);
    const after = await planOf(api, plan.id);
    assert.equal(after.balance, 45_000 - 15_000);
    assert.equal(after.amountPaid, 15_000);
    assert.equal((await linkOf(api, link.id)).paymentId, payments[0]?.id);
    assert.equal((await eventsOf(api, 'payment.recorded')).length, 1);
  });

  test('the payer chooses an amount within the bounds; a bad amount shows the page again, naming it, and records nothing', async () => {
    const { api, workspaceId } = await adeMotors();
    const { plan, schedule } = await freezerPlan(api);
    const link = await createLink(api, plan.id, { amount: 15_000, minAmount: 5_000 });
    const address = payerAddress();
    const bad: [string, string][] = [
      [
        'abc',
        'Enter the amount in figures, like 1,500.50. This link takes any amount from ₦50.00 to ₦450.00.',
      ],
      ['10.00', '₦10.00 is less than the least this link takes: enter an amount from ₦50.00 to ₦450.00.'],
      ['450.01', '₦450.01 is more than the most this link takes: enter an amount from ₦50.00 to ₦450.00.'],
      ['1.234', 'NGN amounts have at most 2 digits after the point'],
      ['', 'Enter an amount.'],
      ['-100', 'Enter an amount more than zero.'],
    ];
    for (const [typed, said] of bad) {
      const page = await postForm(pathOf(link.url), address, { amount: typed });
      assert.equal(page.statusCode, 422, `${typed}: ${page.body}`);
      assertNotFramed(page.headers);
      assertSays(page.body, [
        '<h1>Pay Ade Motors</h1>',
        '<p class="error" id="amount-error">',
        said,
        `value="${typed}" aria-describedby="amount-hint amount-error" aria-invalid="true"`,
      ]);
    }
    const kept = await t.ctx.db
      .selectFrom('pay_link_checkouts')
      .select('checkout_id')
      .where('workspace_id', '=', workspaceId)
      .execute();
    assert.equal(kept.length, 0, 'no checkout was started');

    const checkout = await startCheckout(link, address, { amount: '200' });
    assert.match((await openPage(checkout, address)).body, /Pay ₦200\.00<\/button>/);
    assert.equal((await postForm(checkout, address)).statusCode, 200);
    const [payment] = await paymentsOf(api, plan.id);
    assert.equal(payment?.amount, 20_000);
    assert.deepEqual(
      (await obligationsOf(api, schedule.id)).map((o) => [o.status, o.amount_paid]),
      [
        ['paid', 15_000],
        // Due 10 Jan, so overdue on 20 Jan: paid in part, it stays overdue.
        ['overdue', 5_000],
        ['pending', 0],
      ],
    );
    assert.equal((await planOf(api, plan.id)).balance, 25_000);
    assert.equal((await linkOf(api, link.id)).amountPaid, 20_000);
  });

  test('a fixed amount is the one paid, whatever the form says; a cross-site post is refused', async () => {
    const { api } = await adeMotors();
    const { plan } = await freezerPlan(api);
    const link = await createLink(api, plan.id, { amount: 15_000 });
    const address = payerAddress();
    const forged = await postForm(pathOf(link.url), address, {}, { origin: 'https://evil.example' });
    assert.equal(forged.statusCode, 403);
    assert.match(forged.body, /This payment must be made from its own page/);
    const checkout = await startCheckout(link, address, { amount: '1.00' });
    assert.match((await openPage(checkout, address)).body, /Pay ₦150\.00<\/button>/);
    const crossPay = await postForm(checkout, address, {}, { 'sec-fetch-site': 'cross-site' });
    assert.equal(crossPay.statusCode, 403);
    assert.equal((await paymentsOf(api, plan.id)).length, 0);
  });

  test("a provider's checkout.completed, delivered again and under another id, records one payment", async () => {
    const { api, workspaceId } = await adeMotors();
    const { plan } = await freezerPlan(api);
    const setting = await providerSetting(t, workspaceId, 'gatewayA');
    const link = await createLink(api, plan.id, { amount: 15_000 });
    const checkoutId = (await startCheckout(link, payerAddress())).split('/').pop() as string;
    const completed = notification(checkoutId, { type: 'checkout.completed', amount: 15_000 });
    const outcomes = [];
    for (const body of [completed, completed, { ...completed, id: 'ntf_another' }]) {
      const res = await notify(t, setting, body);
      assert.equal(res.statusCode, 200, res.body);
      outcomes.push(JSON.parse(res.body).data.outcome);
    }
    assert.deepEqual(outcomes, ['recorded', 'recorded', 'already_recorded']);
    const payments = await paymentsOf(api, plan.id);
    assert.equal(payments.length, 1);
    assert.equal(payments[0]?.provider, 'gatewayA');
    const paid = await linkOf(api, link.id);
    assert.deepEqual([paid.status, paid.paymentId], ['paid', payments[0]?.id]);
    assert.equal(paid.paidAt, '2028-01-25T00:00:05.000Z');
  });
});

describe('revoked and expired links', () => {
  test('a revoked link shows a clear page (410) and takes nothing; money a provider reports for it is still recorded', async () => {
    const { api, workspaceId } = await adeMotors();
    const { plan } = await freezerPlan(api);
    const link = await createLink(api, plan.id, { amount: 15_000 });
    const address = payerAddress();
    const checkout = await startCheckout(link, address);

    const revoked = await api.delete(`/pay-links/${link.id}`);
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    assert.deepEqual(
      [revoked.body.data.status, revoked.body.data.revokedAt, revoked.body.data.url],
      ['revoked', NOW, null],
    );
    const [event] = await eventsOf(api, 'pay_link.revoked');
    assert.equal(event?.data.previous_attributes.status, 'active');
    const again = await api.delete(`/pay-links/${link.id}`);
    assert.equal(again.status, 409);
    assert.deepEqual(again.body.error.details, { status: 'revoked', action: 'revoke' });
    assert.equal((await api.delete('/pay-links/pl_01JD7ZF2G3H4J5K6M7N8P9Q0R1')).status, 404);

    const page = await openPage(pathOf(link.url), address);
    assert.equal(page.statusCode, 410);
    assertNotFramed(page.headers);
    assertSays(page.body, [
      '<h1>Link cancelled</h1>',
      '<p>Ade Motors cancelled this link to pay for Freezer, so it takes no payment and nothing was paid.</p>',
      `<p>For a new link, contact Ade Motors:</p>${CONTACT}`,
    ]);
    assert.equal((await postForm(pathOf(link.url), address)).statusCode, 410);
    assert.equal((await openPage(checkout, address)).statusCode, 410);
    assert.equal((await postForm(checkout, address)).statusCode, 410);
    assert.equal((await paymentsOf(api, plan.id)).length, 0);
    assert.equal((await planOf(api, plan.id)).balance, 45_000);
    const checkouts = await t.ctx.db
      .selectFrom('pay_link_checkouts')
      .selectAll()
      .where('pay_link_id', '=', link.id)
      .execute();
    assert.equal(checkouts.length, 1, 'the revoked page started no checkout');

    // The payer had already paid on the provider's page: that money is recorded all the same.
    const setting = await providerSetting(t, workspaceId, 'gatewayA');
    const checkoutId = checkout.split('/').pop() as string;
    const res = await notify(
      t,
      setting,
      notification(checkoutId, { type: 'checkout.completed', amount: 15_000 }),
    );
    assert.equal(JSON.parse(res.body).data.outcome, 'recorded');
    assert.equal((await planOf(api, plan.id)).balance, 30_000);
    assert.equal((await linkOf(api, link.id)).status, 'revoked');
  });

  test('an expired link, once the test clock passes its time, shows a clear page (410) and changes nothing', async () => {
    const { api } = await adeMotors();
    const { plan } = await freezerPlan(api);
    const expiresAt = new Date(Date.parse(NOW) + DAY_MS).toISOString();
    const link = await createLink(api, plan.id, { amount: 15_000, expires_at: expiresAt });
    const address = payerAddress();
    const checkout = await startCheckout(link, address);
    assert.equal((await api.get(`/tracks/${plan.id}/pay-links?status=active`)).body.data.items.length, 1);

    const moved = await api.post('/account/test-clock/advance', { to: expiresAt });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const read = await linkOf(api, link.id);
    assert.equal(read.status, 'expired');
    assert.equal(
      (await api.get(`/tracks/${plan.id}/pay-links?status=expired`)).body.data.items[0]?.id,
      link.id,
    );
    assert.equal((await api.get(`/tracks/${plan.id}/pay-links?status=active`)).body.data.items.length, 0);

    const page = await openPage(pathOf(link.url), address);
    assert.equal(page.statusCode, 410);
    assertNotFramed(page.headers);
    assertSays(page.body, [
      '<h1>Link expired</h1>',
      '<p>This link to pay Ade Motors for Freezer expired on 21 Jan 2028, 13:00 (Lagos time), so it takes no payment and nothing was paid.</p>',
    ]);
    assert.equal((await postForm(pathOf(link.url), address)).statusCode, 410);
    assert.equal((await postForm(checkout, address)).statusCode, 410);
    const revoke = await api.delete(`/pay-links/${link.id}`);
    assert.equal(revoke.status, 409);
    assert.equal(revoke.body.error.details.status, 'expired');
    assert.equal((await paymentsOf(api, plan.id)).length, 0);
    assert.equal((await planOf(api, plan.id)).balance, 45_000);
    assert.deepEqual(await linkOf(api, link.id), read);
  });

  test('a link whose plan was paid off meanwhile takes nothing, on its page nor on the simulator', async () => {
    const { api } = await adeMotors();
    const { plan } = await freezerPlan(api);
    const link = await createLink(api, plan.id, { amount: 15_000 });
    const address = payerAddress();
    const checkout = await startCheckout(link, address);
    await newPayment(api, plan.id, { amount: 45_000 });
    const page = await openPage(pathOf(link.url), address);
    assert.equal(page.statusCode, 410);
    assert.match(page.body, /<h1>Nothing to pay<\/h1>/);
    assert.equal((await postForm(pathOf(link.url), address)).statusCode, 410);
    assert.equal((await openPage(checkout, address)).statusCode, 410);
    assert.equal((await postForm(checkout, address)).statusCode, 410);
    assert.equal((await paymentsOf(api, plan.id)).length, 1, 'the cash payment alone');
    assert.equal((await linkOf(api, link.id)).status, 'active');
  });
});

describe('paying a pay link on Paystack (a local fake)', () => {
  let live: TestApp;
  let paystack: PaystackFake;
  before(async () => {
    paystack = await startPaystackFake();
    live = await liveProviderApp({ paystack: paystack.url }, NOW);
  });
  after(async () => {
    await live?.close();
    await paystack?.close();
  });

  test("the page sends the payer to Paystack's checkout; its webhook, delivered twice, and the return page record one payment", async () => {
    const ws = await newWorkspace(live);
    const setting = await setProviderKey(live, ws.workspaceId, {
      provider: 'paystack',
      mode: 'test',
      secretKey: paystack.secretKey,
      rails: 'checkout',
    });
    const customer = await newCustomer(ws.api, { name: 'Ada Obi', email: 'ada@example.com' });
    const plan = await newTrack(ws.api, { customerId: customer.id, amount: 90_000 });
    const created = await ws.api.post(`/tracks/${plan.id}/pay-links`, { amount: 30_000 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const link = created.body.data;
    const address = payerAddress();
    const pressed = await live.app.inject({
      method: 'POST',
      url: pathOf(link.url),
      remoteAddress: address,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    // Another site: a link to it (a browser would refuse the form's redirect there, form-action 'self').
    assert.equal(pressed.statusCode, 200, pressed.body);
    assertNotFramed(pressed.headers);
    assert.match(pressed.body, /<h1>Continue to Paystack<\/h1>/);
    assert.match(
      pressed.body,
      /Your payment of <strong>₦300\.00<\/strong> to Test workspace is ready on Paystack's secure page/,
    );
    const hosted = continueLinkOf(pressed.body);
    assert.ok(hosted.startsWith(`${paystack.url}/checkout/`), hosted);
    const initialized = paystack.requests.filter((r) => r.path === '/transaction/initialize').at(-1);
    const body = initialized?.body as Row;
    assert.equal(body.amount, 30_000);
    assert.equal(body.email, 'ada@example.com');
    const reference = String(body.reference);

    const webhooks = await paystack.payCheckout(reference);
    for (let i = 0; i < 2; i++) {
      const res = await deliver(
        live,
        setting.id,
        webhooks[0] as { body: string; headers: Record<string, string> },
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(JSON.parse(res.body).data.events[0].outcome, 'recorded');
    }
    const back = new URL(String(body.callback_url));
    const landed = await live.app.inject({ method: 'GET', url: back.pathname, remoteAddress: address });
    assert.equal(landed.statusCode, 200, landed.body);
    assert.match(landed.body, /<h1>Already paid<\/h1>/);

    const payments = (await ws.api.get(`/payments?trackId=${plan.id}`)).body.data.items as Row[];
    assert.equal(payments.length, 1);
    assert.deepEqual([payments[0]?.amount, payments[0]?.provider], [30_000, 'paystack']);
    assert.equal((await ws.api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
    const paid = (await ws.api.get(`/pay-links/${link.id}`)).body.data;
    assert.deepEqual([paid.status, paid.paymentId], ['paid', payments[0]?.id]);
  });
});
