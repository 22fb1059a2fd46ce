import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { formatMoney } from '../../src/lib/money.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { setBusiness } from '../helpers/business.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import { pdfText } from '../helpers/pdf.js';
import { notification, notify, providerSetting } from '../helpers/providers.js';

// GET /customers/{id}/statement: per currency an opening balance, every money line with its running balance and a
// closing balance that is what the plans owe; the credit apart; overdue and next due as of now; and the same as a
// PDF whose text pdftotext reads.

const START = '2027-10-05T09:00:00.000Z';

let t: TestApp;
let dir: string;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(START)) });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-statements-'));
});
after(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const at = (instant: string) => t.clock.set(new Date(instant));

interface Line {
  date: string;
  type: string;
  description: string;
  amount: number;
  balance: number;
  ref: string;
  trackId: string | null;
}

async function statementOf(api: Client, customerId: string, query = '') {
  const res = await api.get(`/customers/${customerId}/statement${query ? `?${query}` : ''}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

const byCurrency = (statement: any, currency: string) =>
  statement.currencies.find((c: { currency: string }) => c.currency === currency);

const sum = (lines: Line[]) => lines.reduce((total, line) => total + line.amount, 0);

/** Each line's balance is the one before plus its amount, from the opening balance to the closing one. */
function assertRunning(opening: number, lines: Line[], closing: number) {
  let balance = opening;
  for (const line of lines) {
    balance += line.amount;
    assert.equal(line.balance, balance, JSON.stringify(line));
  }
  assert.equal(balance, closing);
  assert.equal(opening + sum(lines), closing);
}

/** What the customer's plans in a currency owe now: the sum of their balances. */
async function plansOwe(api: Client, customerId: string, currency: string) {
  const plans = (await api.get(`/tracks?customerId=${customerId}&limit=100`)).body.data.items;
  return plans
    .filter((p: { currency: string }) => p.currency === currency)
    .reduce((total: number, p: { balance: number }) => total + p.balance, 0);
}

/**
 * One customer in Lagos (UTC+1) with two currencies: a fridge in NGN paid by transfer and by a cheque that bounced,
 * its amount raised, a payment at 00:30 Lagos time on 1 Dec; a laptop in GHS paid once and past its due date; and
 * a plan with a virtual account whose transfer overpaid it (the excess is credit) and was then refunded.
 */
async function story() {
  at(START);
  const ws = await newWorkspace(t, { currency: 'NGN', timezone: 'Africa/Lagos' });
  await setBusiness(t, ws.workspaceId, {
    name: 'Adaeze Stores Ltd',
    support_email: 'help@adaeze.example',
    support_phone: '+2348031234567',
    brand_color: '#0b8457',
  });
  const { api } = ws;
  const customer = await newCustomer(api, { name: 'Ada Obi', email: 'ada@example.com' });
  const fridge = await newTrack(api, { customerId: customer.id, title: 'Samsung fridge', amount: 300_000 });
  const laptop = await newTrack(api, {
    customerId: customer.id,
    title: 'Laptop',
    amount: 50_000,
    currency: 'GHS',
  });

  at('2027-11-10T10:00:00.000Z');
  const transfer = await newPayment(api, fridge.id, {
    amount: 50_000,
    method: 'bank_transfer',
    reference: 'GTB-0091',
  });
  await newPayment(api, laptop.id, { amount: 10_000, method: 'mobile_money' });

  at('2027-12-15T10:00:00.000Z');
  const cheque = await newPayment(api, fridge.id, {
    amount: 20_000,
    method: 'cheque',
    reference: 'CHQ-0042',
  });
  // 00:30 on 1 Dec in Lagos, recorded later.
  const lateNight = await newPayment(api, fridge.id, {
    amount: 7_000,
    method: 'cash',
    paidAt: '2027-11-30T23:30:00Z',
  });

  at('2027-12-20T10:00:00.000Z');
  const reversed = await api.post(`/payments/${cheque.id}/reverse`, { reason: 'cheque bounced' });
  assert.equal(reversed.status, 200, JSON.stringify(reversed.body));

  at('2028-01-10T10:00:00.000Z');
  const raised = await api.patch(`/tracks/${fridge.id}`, { amount: 320_000 });
  assert.equal(raised.status, 200, JSON.stringify(raised.body));
  const dueSet = await api.patch(`/tracks/${laptop.id}`, { dueDate: '2027-12-31' });
  assert.equal(dueSet.status, 200, JSON.stringify(dueSet.body));

  at('2028-01-12T10:00:00.000Z');
  const setting = await providerSetting(t, ws.workspaceId, 'gatewayB');
  const phone = await newTrack(api, { customerId: customer.id, title: 'Phone', amount: 20_000 });
  const schedule = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: phone.id,
    frequency: 'one_time',
    fixed_amount: 20_000,
    start_date: '2028-01-25T09:00:00Z',
    collection_method: 'gatewayB_virtual_account',
  });
  assert.equal(schedule.status, 201, JSON.stringify(schedule.body));

  at('2028-01-15T10:00:00.000Z');
  const arrived = await notify(
    t,
    setting,
    notification(schedule.body.data.virtual_account.number, {
      type: 'transfer.received',
      amount: 25_000,
      occurred_at: '2028-01-15T09:59:00Z',
    }),
  );
  assert.equal(arrived.statusCode, 200, arrived.body);
  const onPhone = (await api.get(`/payments?trackId=${phone.id}&limit=10`)).body.data.items[0];
  assert.equal(onPhone.amount, 20_000);

  at('2028-01-18T10:00:00.000Z');
  const refunded = await api.post(`/payments/${onPhone.id}/reverse`, { refund: true, reason: 'sent twice' });
  assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
  assert.equal(refunded.body.data.refund.status, 'succeeded');

  at('2028-01-20T12:00:00.000Z');
  return {
    api,
    customer,
    fridge,
    laptop,
    phone,
    transfer,
    cheque,
    lateNight,
    onPhone,
    workspaceId: ws.workspaceId,
  };
}

let shared: Awaited<ReturnType<typeof story>> | undefined;
async function theStory() {
  shared ??= await story();
  at('2028-01-20T12:00:00.000Z');
  return shared;
}

describe('GET /customers/{id}/statement', () => {
  test('per currency: opening, lines and closing agree with the ledger and with what the plans owe', async () => {
    const { api, customer, fridge, laptop, phone, transfer, cheque, lateNight, onPhone } = await theStory();
    const statement = await statementOf(api, customer.id);
    assert.deepEqual(statement.customer, {
      id: customer.id,
      name: 'Ada Obi',
      email: 'ada@example.com',
      phone: customer.phone,
    });
    // Today in Lagos; from the first day of the month two months before.
    assert.equal(statement.to, '2028-01-20');
    assert.equal(statement.from, '2027-11-01');
    assert.equal(statement.timezone, 'Africa/Lagos');
    assert.equal(statement.asOf, '2028-01-20T12:00:00.000Z');
    assert.deepEqual(
      statement.currencies.map((c: { currency: string }) => c.currency),
      ['GHS', 'NGN'],
    );

    const ngn = byCurrency(statement, 'NGN');
    assert.equal(ngn.openingBalance, 300_000);
    assertRunning(ngn.openingBalance, ngn.lines, ngn.closingBalance);
    assert.equal(ngn.closingBalance, await plansOwe(api, customer.id, 'NGN'));
    assert.equal(ngn.closingBalance, 300_000 - 50_000 - 7_000 + 20_000 + 20_000);
    assert.deepEqual(
      ngn.lines.map((l: Line) => [l.date, l.type, l.amount, l.ref, l.trackId]),
      [
        ['2027-11-10', 'payment', -50_000, transfer.id, fridge.id],
        ['2027-12-01', 'payment', -7_000, lateNight.id, fridge.id],
        ['2027-12-15', 'payment', -20_000, cheque.id, fridge.id],
        ['2027-12-20', 'reversal', 20_000, cheque.id, fridge.id],
        ['2028-01-10', 'adjustment', 20_000, fridge.id, fridge.id],
        ['2028-01-12', 'charge', 20_000, phone.id, phone.id],
        ['2028-01-15', 'payment', -20_000, onPhone.id, phone.id],
        ['2028-01-18', 'refund', 20_000, onPhone.id, phone.id],
      ],
    );
    const words = ngn.lines.map((l: Line) => l.description);
    assert.equal(words[0], 'Payment — bank transfer, ref GTB-0091 (Samsung fridge)');
    assert.equal(words[3], 'Payment reversed: cheque bounced (ref CHQ-0042) (Samsung fridge)');
    assert.equal(words[4], 'Plan amount changed: Samsung fridge (₦3,000.00 → ₦3,200.00)');
    assert.equal(words[5], 'Plan charged: Phone');
    assert.match(words[7], /^Payment refunded: sent twice/);

    // The overpayment's excess is credit, apart from the lines: what GET /customers/{id} calls credit.
    const balances = (await api.get(`/customers/${customer.id}`)).body.data.balances;
    const ngnCredit = balances.find((b: { currency: string }) => b.currency === 'NGN').credit;
    assert.equal(ngnCredit, 5_000);
    assert.equal(ngn.credit.openingBalance, 0);
    assert.equal(ngn.credit.closingBalance, ngnCredit);
    assert.deepEqual(
      ngn.credit.lines.map((l: Line) => [l.date, l.type, l.amount, l.balance, l.trackId]),
      [['2028-01-15', 'payment', 5_000, 5_000, null]],
    );
    assert.match(ngn.credit.lines[0].description, /^Payment kept as credit — transfer to a virtual account/);

    const ghs = byCurrency(statement, 'GHS');
    assert.equal(ghs.openingBalance, 50_000);
    assert.deepEqual(
      ghs.lines.map((l: Line) => [l.date, l.type, l.amount, l.balance, l.trackId]),
      [['2027-11-10', 'payment', -10_000, 40_000, laptop.id]],
    );
    assert.equal(ghs.lines[0].description, 'Payment — mobile money (Laptop)');
    assert.equal(ghs.closingBalance, await plansOwe(api, customer.id, 'GHS'));
    assert.equal(ghs.closingBalance, 40_000);
    assert.deepEqual(ghs.credit, { openingBalance: 0, lines: [], closingBalance: 0 });

    // The lines are the ledger's money entries on the plans in the period, amount for amount.
    const ledger = (await api.get(`/customers/${customer.id}/ledger?limit=100`)).body.data.items;
    const moneyOnPlans = ledger
      .filter((e: any) => e.trackId !== null && e.amount !== 0 && e.currency === 'NGN')
      .filter((e: any) => e.occurredAt >= '2027-10-31T23:00:00.000Z')
      .map((e: any) => e.amount)
      .sort((a: number, b: number) => a - b);
    assert.deepEqual(
      moneyOnPlans,
      ngn.lines.map((l: Line) => l.amount).sort((a: number, b: number) => a - b),
    );
    const planSum = ledger
      .filter((e: any) => e.trackId !== null && e.currency === 'NGN')
      .reduce((total: number, e: any) => total + e.amount, 0);
    assert.equal(planSum, ngn.closingBalance);
  });

  test('overdue now is aged as the overdue report ages it; next due is the next open obligation', async () => {
    const { api, customer } = await theStory();
    const statement = await statementOf(api, customer.id);
    const ghs = byCurrency(statement, 'GHS');
    // The laptop's dueDate (31 Dec) has passed with 40,000 left: 20 days.
    assert.deepEqual(ghs.overdue, {
      total: 40_000,
      buckets: { '1-30': 40_000, '31-60': 0, '61-90': 0, '91+': 0 },
    });
    assert.equal(ghs.nextDue, null);
    const report = (await api.get('/reports/overdue')).body.data;
    for (const c of report.currencies) {
      assert.deepEqual(byCurrency(statement, c.currency).overdue, { total: c.total, buckets: c.buckets });
    }
    const ngn = byCurrency(statement, 'NGN');
    assert.equal(ngn.overdue.total, 0);
    // The refund opened the phone's obligation again.
    assert.deepEqual(ngn.nextDue, { date: '2028-01-25', amount: 20_000 });
    const summary = (await api.get('/reports/summary')).body.data;
    for (const c of summary.currencies) {
      assert.deepEqual(byCurrency(statement, c.currency).overdue.buckets, c.overdueBuckets);
    }
  });

  test('a period in the past: the opening balance of a mid-period from, the closing of an earlier to', async () => {
    const { api, customer, fridge } = await theStory();
    const whole = byCurrency(await statementOf(api, customer.id), 'NGN');
    // From 1 Dec (Lagos): the payment at 00:30 on 1 Dec is a line, the one of 10 Nov is in the opening balance.
    const december = byCurrency(await statementOf(api, customer.id, 'from=2027-12-01&to=2027-12-31'), 'NGN');
    assert.equal(december.openingBalance, 300_000 - 50_000);
    const before = whole.lines.filter((l: Line) => l.date < '2027-12-01');
    assert.equal(december.openingBalance, whole.openingBalance + sum(before));
    assert.deepEqual(
      december.lines.map((l: Line) => [l.date, l.type, l.amount]),
      [
        ['2027-12-01', 'payment', -7_000],
        ['2027-12-15', 'payment', -20_000],
        ['2027-12-20', 'reversal', 20_000],
      ],
    );
    assertRunning(december.openingBalance, december.lines, december.closingBalance);
    assert.equal(december.closingBalance, 243_000);
    // The plan's own ledger says the same of the end of December.
    const fridgeLedger = (await api.get(`/tracks/${fridge.id}/ledger?limit=100`)).body.data.items;
    const endOfDecember = fridgeLedger
      .filter((e: any) => e.occurredAt < '2027-12-31T23:00:00.000Z')
      .reduce((total: number, e: any) => total + e.amount, 0);
    assert.equal(december.closingBalance, endOfDecember);
    // One day, one line; and a day with none.
    const oneDay = byCurrency(await statementOf(api, customer.id, 'from=2027-12-15&to=2027-12-15'), 'NGN');
    assert.deepEqual(
      oneDay.lines.map((l: Line) => l.amount),
      [-20_000],
    );
    const quiet = byCurrency(await statementOf(api, customer.id, 'from=2027-12-02&to=2027-12-03'), 'NGN');
    assert.deepEqual(quiet.lines, []);
    assert.equal(quiet.openingBalance, quiet.closingBalance);
    assert.equal(quiet.openingBalance, 243_000);
  });

  test('currency keeps one currency; one the customer has nothing in is all zeros', async () => {
    const { api, customer } = await theStory();
    const ghsOnly = await statementOf(api, customer.id, 'currency=GHS');
    assert.deepEqual(
      ghsOnly.currencies.map((c: { currency: string }) => c.currency),
      ['GHS'],
    );
    const usd = await statementOf(api, customer.id, 'currency=USD');
    assert.deepEqual(usd.currencies, [
      {
        currency: 'USD',
        openingBalance: 0,
        lines: [],
        closingBalance: 0,
        credit: { openingBalance: 0, lines: [], closingBalance: 0 },
        overdue: { total: 0, buckets: { '1-30': 0, '31-60': 0, '61-90': 0, '91+': 0 } },
        nextDue: null,
      },
    ]);
    const fresh = await newCustomer(api);
    assert.deepEqual((await statementOf(api, fresh.id)).currencies, []);
  });

  test('bad queries are validation errors naming the field; an unknown customer is not found', async () => {
    const { api, customer } = await theStory();
    const url = (query: string) => `/customers/${customer.id}/statement?${query}`;
    const cases: [string, string][] = [
      ['from=2028-01-10&to=2028-01-01', 'from'],
      ['from=2027-13-01', 'from'],
      ['from=yesterday', 'from'],
      ['to=2028-01-21', 'to'],
      ['to=2028-02-30', 'to'],
      ['from=2026-12-01&to=2028-01-01', 'from'],
      ['currency=XYZ', 'currency'],
      ['currency=ngn', 'currency'],
      ['currency=NAIRA', 'currency'],
      ['format=xml', 'format'],
      ['page=2', 'page'],
    ];
    for (const [query, field] of cases) {
      const res = await api.get(url(query));
      assert.equal(res.status, 422, `${query}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'validation_error', query);
      assert.ok(res.body.error.details.fields[field], `${query}: ${JSON.stringify(res.body.error.details)}`);
      assert.match(res.body.request_id, /^req_/);
    }
    // 366 days is the longest period.
    assert.equal((await api.get(url('from=2027-01-19&to=2028-01-20'))).status, 200);

    for (const accept of ['application/json', 'application/pdf']) {
      const missing = await api.get('/customers/cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B/statement', { accept });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, 'not_found');
      assert.match(String(missing.headers['content-type']), /application\/json/);
    }
    // Another workspace's customer is not there either.
    const other = await newWorkspace(t);
    assert.equal((await other.api.get(`/customers/${customer.id}/statement`)).status, 404);
  });

  test('needs customers:read', async () => {
    const { customer, workspaceId } = await theStory();
    const tracksOnly = await newKey(t, workspaceId, { scopes: ['tracks:read'] });
    const refused = await tracksOnly.api.get(`/customers/${customer.id}/statement`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.details.required_scope, 'customers:read');
    const reader = await newKey(t, workspaceId, { scopes: ['customers:read'] });
    assert.equal((await reader.api.get(`/customers/${customer.id}/statement`)).status, 200);
  });
});

const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('the statement as a PDF', () => {
  test('format=pdf and Accept: application/pdf give the PDF; its text holds the statement, figure for figure', async () => {
    const { api, customer, workspaceId } = await theStory();
    const key = (await newKey(t, workspaceId)).key;
    const get = (query: string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${customer.id}/statement${query ? `?${query}` : ''}`,
        headers: { authorization: `Bearer ${key}`, ...headers },
      });
    const statement = await statementOf(api, customer.id);

    const byFormat = await get('format=pdf');
    assert.equal(byFormat.statusCode, 200, byFormat.body);
    assert.equal(byFormat.headers['content-type'], 'application/pdf');
    assert.equal(
      byFormat.headers['content-disposition'],
      `attachment; filename="statement-${customer.id}-2027-11-01-2028-01-20.pdf"`,
    );
    assert.equal(byFormat.headers['cache-control'], 'no-store');
    assert.match(String(byFormat.headers['x-request-id']), /^req_/);
    const bytes = byFormat.rawPayload;
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.match(bytes.subarray(-8).toString('latin1'), /%%EOF\s*$/);

    const byAccept = await get('', { accept: 'application/pdf' });
    assert.equal(byAccept.statusCode, 200);
    assert.equal(byAccept.headers['content-type'], 'application/pdf');
    assert.equal(byAccept.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
    // JSON when it is preferred or asked for by name.
    for (const [query, accept] of [
      ['', 'application/json, application/pdf;q=0.5'],
      ['format=json', 'application/pdf'],
      ['', '*/*'],
    ] as const) {
      const res = await get(query, { accept });
      assert.match(String(res.headers['content-type']), /application\/json/, `${query} ${accept}`);
    }

    const file = path.join(dir, 'statement.pdf');
    fs.writeFileSync(file, bytes);
    if (process.env.STATEMENT_PDF_OUT) fs.copyFileSync(file, process.env.STATEMENT_PDF_OUT);
    const text = pdfText(file);
    for (const words of [
      'Adaeze Stores Ltd',
      'help@adaeze.example',
      '+2348031234567',
      'Statement of account',
      '1 Nov 2027 – 20 Jan 2028',
      'Ada Obi',
      'ada@example.com',
      'NGN — Nigerian Naira',
      'GHS — Ghanaian Cedi',
      'Payment — bank transfer, ref GTB-0091',
      'Page 1',
      'Page 2',
    ]) {
      assert.ok(text.includes(words), `the PDF does not show "${words}":\n${text}`);
    }
    assert.ok(text.includes('₦') && text.includes('GH₵'), 'the PDF shows ₦ and GH₵');
    for (const c of statement.currencies) {
      const money = (minor: number) => plain(formatMoney(minor, c.currency));
      const figures = [
        c.openingBalance,
        c.closingBalance,
        c.credit.closingBalance,
        c.overdue.total,
        ...c.lines.flatMap((l: Line) => [l.amount, l.balance]),
        ...c.credit.lines.flatMap((l: Line) => [l.amount, l.balance]),
      ];
      for (const figure of figures) {
        assert.ok(text.includes(money(figure)), `the PDF does not show ${money(figure)} (${c.currency})`);
      }
      for (const line of c.lines as Line[]) {
        // Each line on one row: its amount and balance beside each other.
        const row = new RegExp(`${literally(money(line.amount))}\\s+${literally(money(line.balance))}`);
        assert.match(text, row, `${line.description}: ${money(line.amount)} then ${money(line.balance)}`);
      }
    }
    assert.match(text, /Opening balance, 1 Nov 2027\s+₦3,000\.00/);
    assert.match(text, /Closing balance, 20 Jan 2028\s+₦2,830\.00/);
    assert.match(text, /Next due\s+₦200\.00 on 25 Jan 2028/);

    // Only the DejaVu fonts, embedded: no text falls back to Helvetica, which has no ₦ or ₵.
    const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' });
    const names = fonts
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => l.split(/\s+/)[0]?.replace(/^[A-Z]{6}\+/, ''));
    assert.deepEqual([...new Set(names)].sort(), ['DejaVuSans', 'DejaVuSans-Bold'], fonts);
    assert.doesNotMatch(fonts, /Helvetica/);
  });

  test('bad queries and unknown customers are JSON errors, not PDFs', async () => {
    const { customer, workspaceId } = await theStory();
    const key = (await newKey(t, workspaceId)).key;
    for (const [id, query, status] of [
      [customer.id, 'format=pdf&from=2028-01-10&to=2028-01-01', 422],
      ['cus_nobody', 'format=pdf', 404],
    ] as const) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${id}/statement?${query}`,
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(res.statusCode, status, res.body);
      assert.match(String(res.headers['content-type']), /application\/json/);
      assert.equal(JSON.parse(res.body).success, false);
    }
  });
});

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
