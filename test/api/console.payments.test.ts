import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { consoleGet, consolePerson, consolePost } from '../helpers/console.js';
import { newCustomer, newPayment, newTrack } from '../helpers/factories.js';

// The console's payments: the list and its filters, a payment's page, the form that records one (once, however
// often it is sent) and the reversal (a reason and a confirmation, both required), through the API as the
// signed-in person: the same validation and audit trail, and what the role allows.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const DAY = 86_400_000;
const dayFrom = (days: number) => new Date(t.clock.now().getTime() + days * DAY).toISOString().slice(0, 10);
const instantFrom = (days: number) => new Date(t.clock.now().getTime() + days * DAY).toISOString();

/** A plan of ₦1,000.00 whose first instalment of ₦250.00 fell due three days ago. */
async function planOwing(api: Client) {
  const customer = await newCustomer(api, { name: 'Bola Ade' });
  const plan = await newTrack(api, { customerId: customer.id, title: 'Television', amount: 100_000 });
  const made = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: 25_000,
    start_date: instantFrom(-3),
    end_date: instantFrom(100),
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { customer, plan };
}

const errorOf = (html: string, name: string) =>
  new RegExp(`id="f-${name}-error">([^<]*)<`).exec(html)?.[1] ?? '';

async function auditOf(api: Client, id: string) {
  const log = await api.get(`/audit-log?record_id=${id}`);
  assert.equal(log.status, 200, JSON.stringify(log.body));
  return log.body.data.items as {
    actor: { type: string; id: string };
    action: string;
    reason: string | null;
    changes: Record<string, unknown>;
  }[];
}

describe('console payments', () => {
  test('recording a payment through the form: seen through the API, in the balance and once in the audit trail', async () => {
    const collector = await consolePerson(t, 'collector');
    const { api } = collector.workspace;
    const { customer, plan } = await planOwing(api);

    const form = await consoleGet(t, collector, `/console/payments/new?track_id=${plan.id}`);
    assert.equal(form.statusCode, 200, form.body);
    assert.match(
      form.body,
      /Plan: <a href="\/console\/plans\/[^"]+">Television<\/a> of <a[^>]*>Bola Ade<\/a>/,
    );
    assert.match(form.body, /name="amount"[^>]*value="250\.00"/);
    assert.match(form.body, /Due now \(overdue and due today\): ₦250\.00/);
    assert.match(form.body, /<option value="bank_transfer">Bank transfer<\/option>/);

    const fields = {
      idempotency_key: randomUUID(),
      track_id: plan.id,
      amount: '400.00',
      method: 'bank_transfer',
      reference: 'GTB-TRF-0091',
      paid_on: dayFrom(-1),
    };
    const recorded = await consolePost(t, collector, '/console/payments', fields);
    assert.equal(recorded.statusCode, 303, recorded.body);
    const location = String(recorded.headers.location);
    const id = /^\/console\/payments\/(pay_\w+)\?done=recorded$/.exec(location)?.[1];
    assert.ok(id, location);

    const payment = (await api.get(`/payments/${id}`)).body.data;
    assert.equal(payment.amount, 40_000);
    assert.equal(payment.method, 'bank_transfer');
    assert.equal(payment.reference, 'GTB-TRF-0091');
    assert.equal(payment.status, 'recorded');
    assert.equal(payment.customerId, customer.id);
    assert.equal(payment.paidAt.slice(0, 10), dayFrom(-1));
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
    const audit = await auditOf(api, id);
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0]?.actor, { type: 'user', id: collector.id });
    assert.equal(audit[0]?.action, 'payments.create');

    // The same form sent again records nothing more.
    const again = await consolePost(t, collector, '/console/payments', fields);
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, location);
    assert.equal((await api.get(`/payments?trackId=${plan.id}`)).body.data.items.length, 1);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 60_000);
    assert.equal((await auditOf(api, id)).length, 1);

    const page = await consoleGet(t, collector, location);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /The payment was recorded\./);
    assert.match(page.body, /<h1>Payment of ₦400\.00<\/h1>/);
    assert.match(page.body, /GTB-TRF-0091/);
    assert.match(page.body, /Bank transfer/);
    assert.match(page.body, /<caption>Obligations it paid<\/caption>/);
    assert.doesNotMatch(page.body, /Reverse payment/);
    assert.match(page.body, /Only owners and admins reverse payments/);

    // Today is the API's now: no paidAt sent.
    const today = await consolePost(t, collector, '/console/payments', {
      ...fields,
      idempotency_key: randomUUID(),
      reference: '',
      paid_on: dayFrom(0),
      amount: '10',
      method: 'cash',
    });
    assert.equal(today.statusCode, 303, today.body);
    const cash = (await api.get(`/payments/${/pay_\w+/.exec(String(today.headers.location))?.[0]}`)).body
      .data;
    assert.equal(cash.paidAt, t.clock.now().toISOString());
    assert.equal(cash.reference, null);
  });

  test('bad amounts, days and references are field errors and record nothing', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const { plan } = await planOwing(api);
    await newPayment(api, plan.id, { amount: 100, reference: 'USED-1' });
    const base = {
      idempotency_key: randomUUID(),
      track_id: plan.id,
      amount: '10',
      method: 'cash',
      paid_on: dayFrom(0),
    };
    const cases: [Record<string, string>, string, RegExp, number][] = [
      [{ amount: '12.345' }, 'amount', /NGN amounts have at most 2 digits after the point/, 422],
      [{ amount: 'abc' }, 'amount', /Enter the amount in figures/, 422],
      [{ amount: '-5' }, 'amount', /more than zero/, 422],
      [{ amount: '' }, 'amount', /Enter an amount/, 422],
      [{ amount: '5,000' }, 'amount', /More than the plan&#39;s balance of ₦999\.00/, 422],
      [{ paid_on: dayFrom(2) }, 'paid_on', /today or an earlier day/, 422],
      [{ method: 'barter' }, 'method', /Choose a method/, 422],
      [{ reference: 'USED-1' }, 'reference', /./, 422],
      [{ track_id: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C' }, 'track_id', /No such plan/, 422],
    ];
    for (const [change, name, message, code] of cases) {
      const res = await consolePost(t, owner, '/console/payments', { ...base, ...change });
      assert.equal(res.statusCode, code, `${JSON.stringify(change)}: ${res.body.slice(0, 300)}`);
      assert.match(errorOf(res.body, name), message, JSON.stringify(change));
      assert.match(res.body, /class="problem" role="alert"/);
    }
    // What was typed is kept.
    const kept = await consolePost(t, owner, '/console/payments', {
      ...base,
      amount: 'abc',
      reference: 'MINE-9',
    });
    assert.match(kept.body, /name="amount"[^>]*value="abc"/);
    assert.match(kept.body, /name="reference"[^>]*value="MINE-9"/);
    assert.equal((await api.get(`/payments?trackId=${plan.id}`)).body.data.items.length, 1);
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 99_900);
  });

  test('a reversal needs a reason and a confirmation; with both, the payment is reversed and audited with the reason', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const { plan } = await planOwing(api);
    const payment = await newPayment(api, plan.id, { amount: 30_000, method: 'cheque' });
    const path = `/console/payments/${payment.id}/reverse`;

    const page = await consoleGet(t, owner, `/console/payments/${payment.id}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /I understand the balance of Television goes back up by ₦300\.00\./);
    assert.match(page.body, /Reverse payment/);

    const noReason = await consolePost(t, owner, path, {
      idempotency_key: randomUUID(),
      reason: ' ',
      confirm: 'yes',
    });
    assert.equal(noReason.statusCode, 422);
    assert.match(errorOf(noReason.body, 'reason'), /Give the reason/);
    const unconfirmed = await consolePost(t, owner, path, {
      idempotency_key: randomUUID(),
      reason: 'Cheque bounced',
    });
    assert.equal(unconfirmed.statusCode, 422);
    assert.match(errorOf(unconfirmed.body, 'confirm'), /Tick the box/);
    assert.match(unconfirmed.body, />Cheque bounced<\/textarea>/);
    assert.equal((await api.get(`/payments/${payment.id}`)).body.data.status, 'recorded');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 70_000);

    const reversed = await consolePost(t, owner, path, {
      idempotency_key: randomUUID(),
      reason: 'Cheque bounced',
      confirm: 'yes',
    });
    assert.equal(reversed.statusCode, 303, reversed.body);
    assert.equal(reversed.headers.location, `/console/payments/${payment.id}?done=reversed`);
    const after = (await api.get(`/payments/${payment.id}`)).body.data;
    assert.equal(after.status, 'reversed');
    assert.equal(after.reversalReason, 'Cheque bounced');
    assert.equal((await api.get(`/tracks/${plan.id}`)).body.data.balance, 100_000);
    const [entry] = await auditOf(api, payment.id);
    assert.equal(entry?.action, 'payments.reverse');
    assert.equal(entry?.reason, 'Cheque bounced');
    assert.deepEqual(entry?.actor, { type: 'user', id: owner.id });

    const shown = await consoleGet(t, owner, String(reversed.headers.location));
    assert.match(shown.body, /The payment was reversed/);
    assert.match(shown.body, /Cheque bounced/);
    assert.doesNotMatch(shown.body, /Reverse payment/);

    const twice = await consolePost(t, owner, path, {
      idempotency_key: randomUUID(),
      reason: 'Again',
      confirm: 'yes',
    });
    assert.equal(twice.statusCode, 409);
    assert.match(twice.body, /class="problem"/);
  });

  test('a collector records but is refused a reversal; a viewer does neither; nothing changes', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const { plan } = await planOwing(api);
    const payment = await newPayment(api, plan.id, { amount: 10_000 });
    const collector = await consolePerson(t, 'collector', owner.workspace);
    const viewer = await consolePerson(t, 'viewer', owner.workspace);
    const reverse = { idempotency_key: randomUUID(), reason: 'Forged', confirm: 'yes' };

    const forged = await consolePost(t, collector, `/console/payments/${payment.id}/reverse`, reverse);
    assert.equal(forged.statusCode, 403);
    const byViewer = await consolePost(t, viewer, `/console/payments/${payment.id}/reverse`, reverse);
    assert.equal(byViewer.statusCode, 403);
    assert.equal((await api.get(`/payments/${payment.id}`)).body.data.status, 'recorded');
    assert.equal((await auditOf(api, payment.id)).length, 1);

    const looked = await consoleGet(t, viewer, `/console/payments/${payment.id}`);
    assert.equal(looked.statusCode, 200);
    assert.doesNotMatch(looked.body, /Reverse payment|name="reason"/);
    assert.equal((await consoleGet(t, viewer, `/console/payments/new?track_id=${plan.id}`)).statusCode, 403);
    const recorded = await consolePost(t, viewer, '/console/payments', {
      idempotency_key: randomUUID(),
      track_id: plan.id,
      amount: '10',
      method: 'cash',
    });
    assert.equal(recorded.statusCode, 403);
    const list = await consoleGet(t, viewer, '/console/payments');
    assert.equal(list.statusCode, 200);
    assert.doesNotMatch(list.body, /Record a payment/);
    assert.doesNotMatch((await consoleGet(t, viewer, `/console/plans/${plan.id}`)).body, /Record a payment/);
    assert.equal((await api.get(`/payments?trackId=${plan.id}`)).body.data.items.length, 1);

    const byCollector = await consolePost(t, collector, '/console/payments', {
      idempotency_key: randomUUID(),
      track_id: plan.id,
      amount: '10',
      method: 'cash',
    });
    assert.equal(byCollector.statusCode, 303, byCollector.body);
    assert.equal((await api.get(`/payments?trackId=${plan.id}`)).body.data.items.length, 2);
  });

  test('the list filters payments by method, status, plan, customer and days', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const { plan, customer } = await planOwing(api);
    const other = await newTrack(api, { title: 'Radio', amount: 50_000 });
    await newPayment(api, plan.id, { amount: 1_111, method: 'cash', paidAt: instantFrom(-10) });
    await newPayment(api, plan.id, { amount: 2_222, method: 'bank_transfer' });
    await newPayment(api, other.id, { amount: 3_333, method: 'cash' });
    const reversed = await newPayment(api, other.id, { amount: 4_444, method: 'pos' });
    assert.equal((await api.post(`/payments/${reversed.id}/reverse`, { reason: 'Mistake' })).status, 200);

    const shown = async (query: string) => {
      const res = await consoleGet(t, owner, `/console/payments?${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return ['₦11.11', '₦22.22', '₦33.33', '₦44.44'].filter((amount) => res.body.includes(amount));
    };
    assert.deepEqual(await shown(''), ['₦11.11', '₦22.22', '₦33.33', '₦44.44']);
    assert.deepEqual(await shown('method=cash'), ['₦11.11', '₦33.33']);
    assert.deepEqual(await shown('status=reversed'), ['₦44.44']);
    assert.deepEqual(await shown(`track_id=${plan.id}`), ['₦11.11', '₦22.22']);
    assert.deepEqual(await shown(`customer_id=${customer.id}&method=bank_transfer`), ['₦22.22']);
    assert.deepEqual(await shown(`from=${dayFrom(-11)}&to=${dayFrom(-9)}`), ['₦11.11']);
    assert.deepEqual(await shown(`from=${dayFrom(-5)}`), ['₦22.22', '₦33.33', '₦44.44']);
    assert.deepEqual(await shown(`to=${dayFrom(0)}&method=pos`), ['₦44.44']);

    const all = await consoleGet(t, owner, '/console/payments');
    assert.match(all.body, /Bola Ade/);
    assert.match(all.body, new RegExp(`href="/console/plans/${plan.id}">Television</a>`));
    const ofPlan = await consoleGet(t, owner, `/console/payments?track_id=${plan.id}`);
    assert.match(ofPlan.body, /Payments of the plan <a[^>]*>Television<\/a>/);
    assert.match(ofPlan.body, new RegExp(`href="/console/payments/new\\?track_id=${plan.id}"`));

    const bad = await consoleGet(t, owner, '/console/payments?from=yesterday');
    assert.equal(bad.statusCode, 422);
    assert.match(errorOf(bad.body, 'from'), /Enter a date/);
    const missing = await consoleGet(t, owner, '/console/payments/pay_01JD7Z8R6T1V4W7X9Y2Z5A8B0D');
    assert.equal(missing.statusCode, 404);
  });
});
