import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newSchedule } from '../helpers/collections.js';
import { type ConsolePerson, consoleGet, consolePerson, consolePost } from '../helpers/console.js';
import { newCustomer, newTrack } from '../helpers/factories.js';

// The collections workflow in the console, on a plan's page: disputes opened by a collector and rejected or
// accepted (with a write-off) by an owner, write-offs and their reversal, late fees marked and waived, the
// settlement quote and the payment that settles the plan, and what Today's work says is promised or disputed.

const NOW = '2028-03-10T12:00:00.000Z';
const APOSTROPHE = "(&#39;|&#x27;|')";

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

type Row = Record<string, any>;

/** A form posted as the console's forms post it: with the key that makes a double submit change things once. */
const post = (person: ConsolePerson, path: string, fields: Record<string, string>) =>
  consolePost(t, person, path, { idempotency_key: randomUUID(), ...fields });

const planOf = async (api: Client, id: string) => (await api.get(`/tracks/${id}`)).body.data as Row;
const listOf = async (api: Client, path: string) => {
  const res = await api.get(path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items as Row[];
};

/** A plan of ₦1,000.00 whose one instalment fell due 1 Mar 2028: overdue. */
async function overduePlan(api: Client, title = 'Fridge') {
  const customer = await newCustomer(api, { name: `${title} buyer` });
  const plan = await newTrack(api, { customerId: customer.id, title, amount: 100_000 });
  await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'one_time',
    fixed_amount: 100_000,
    start_date: '2028-03-01T09:00:00Z',
    collection_method: 'manual',
  });
  return plan;
}

describe('console collections workflow', () => {
  test('a collector opens a dispute on the plan; an owner rejects one and accepts another with a write-off', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const collector = await consolePerson(t, 'collector', owner.workspace);
    const viewer = await consolePerson(t, 'viewer', owner.workspace);
    const plan = await overduePlan(api);
    const href = `/console/plans/${plan.id}`;

    let page = await consoleGet(t, collector, href);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h2>Disputes<\/h2>/);
    assert.match(page.body, /No disputes\./);
    assert.match(page.body, /<summary>Open a dispute<\/summary>/);
    assert.match(page.body, /<option value="goods_returned">Goods returned<\/option>/);
    assert.doesNotMatch((await consoleGet(t, viewer, href)).body, /Open a dispute/);

    const noReason = await post(collector, `${href}/disputes`, { dispute_note: 'Hmm' });
    assert.equal(noReason.statusCode, 422);
    assert.match(noReason.body, /Choose the reason the customer gives\./);
    assert.match(noReason.body, /<summary>Open a dispute<\/summary>/);
    assert.match(noReason.body, /<details class="card" open>/);
    const byViewer = await post(viewer, `${href}/disputes`, { dispute_reason: 'other' });
    assert.equal(byViewer.statusCode, 403);
    assert.deepEqual(await listOf(api, `/disputes?trackId=${plan.id}`), []);

    const opened = await post(collector, `${href}/disputes`, {
      dispute_reason: 'not_received',
      dispute_note: 'Says the fridge never came',
    });
    assert.equal(opened.statusCode, 303, opened.body);
    assert.equal(opened.headers.location, `${href}?done=dispute_opened`);
    page = await consoleGet(t, collector, `${href}?done=dispute_opened`);
    assert.match(page.body, /The dispute was opened/);
    assert.match(page.body, /Goods or service not received/);
    assert.match(page.body, /The whole plan/);
    assert.match(page.body, /Says the fridge never came/);
    assert.match(page.body, /<span class="status">open<\/span>/);
    assert.doesNotMatch(page.body, /Reject or accept/, 'a collector does not resolve');
    const twice = await post(collector, `${href}/disputes`, { dispute_reason: 'other' });
    assert.equal(twice.statusCode, 409);
    assert.match(twice.body, /is already open on this; resolve it first/);

    const [dispute] = await listOf(api, `/disputes?trackId=${plan.id}`);
    const resolveHref = `${href}/disputes/${dispute?.id}`;
    assert.equal((await consoleGet(t, collector, resolveHref)).statusCode, 403);
    const byCollector = await post(collector, resolveHref, { outcome: 'rejected' });
    assert.equal(byCollector.statusCode, 403);

    const ownerPage = await consoleGet(t, owner, href);
    assert.match(ownerPage.body, new RegExp(`href="${resolveHref}">Reject or accept…</a>`));
    const resolve = await consoleGet(t, owner, resolveHref);
    assert.equal(resolve.statusCode, 200);
    assert.match(resolve.body, /<h2 id="reject">Reject<\/h2>/);
    assert.match(resolve.body, /<option value="write_off">Accept and write off<\/option>/);
    const rejected = await post(owner, resolveHref, {
      outcome: 'rejected',
      reject_note: 'Delivery note signed',
    });
    assert.equal(rejected.statusCode, 303, rejected.body);
    assert.equal(rejected.headers.location, `${href}?done=dispute_rejected`);
    page = await consoleGet(t, owner, `${href}?done=dispute_rejected`);
    assert.match(page.body, /Rejected: chasing resumed\. Delivery note signed/);
    const again = await post(owner, resolveHref, { outcome: 'accepted' });
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /This dispute is resolved\./);

    await post(collector, `${href}/disputes`, { dispute_reason: 'wrong_amount' });
    const second = (await listOf(api, `/disputes?trackId=${plan.id}&status=open`))[0];
    const secondHref = `${href}/disputes/${second?.id}`;
    const badAmount = await post(owner, secondHref, {
      outcome: 'accepted',
      accept_action: 'write_off',
      write_off_amount: '12.345',
    });
    assert.equal(badAmount.statusCode, 422);
    assert.match(badAmount.body, /NGN amounts have at most 2 digits after the point/);
    const tooMuch = await post(owner, secondHref, {
      outcome: 'accepted',
      accept_action: 'write_off',
      write_off_amount: '2000',
    });
    assert.equal(tooMuch.statusCode, 422);
    assert.match(tooMuch.body, new RegExp(`must be at most the plan${APOSTROPHE}s balance`));
    assert.equal((await planOf(api, plan.id)).balance, 100_000);

    const accepted = await post(owner, secondHref, {
      outcome: 'accepted',
      accept_action: 'write_off',
      write_off_amount: '150',
      accept_note: 'Priced wrong',
    });
    assert.equal(accepted.statusCode, 303, accepted.body);
    assert.equal(accepted.headers.location, `${href}?done=dispute_accepted`);
    assert.equal((await planOf(api, plan.id)).balance, 85_000);
    page = await consoleGet(t, owner, href);
    assert.match(page.body, /Accepted: ₦150\.00 written off\. Priced wrong/);
    assert.match(page.body, /Wrong amount/);
  });

  test('an owner writes off part of a plan and reverses it; errors show; collectors and viewers cannot', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const collector = await consolePerson(t, 'collector', owner.workspace);
    const viewer = await consolePerson(t, 'viewer', owner.workspace);
    const plan = await overduePlan(api, 'Cooker');
    const href = `/console/plans/${plan.id}`;

    let page = await consoleGet(t, owner, href);
    assert.match(page.body, /<h2>Settle or write off<\/h2>/);
    assert.match(page.body, /<summary>Write off<\/summary>/);
    assert.doesNotMatch(page.body, /Reverse the last write-off/);
    for (const person of [collector, viewer]) {
      const seen = await consoleGet(t, person, href);
      assert.doesNotMatch(seen.body, /<summary>Write off<\/summary>|Reverse the last write-off/);
      const refused = await post(person, `${href}/write-off`, { write_off_reason: 'Gone' });
      assert.equal(refused.statusCode, 403);
      assert.match(refused.body, /Only owners and admins resolve disputes, write off and waive fees/);
      assert.equal((await post(person, `${href}/write-off/reverse`, {})).statusCode, 403);
    }

    const noReason = await post(owner, `${href}/write-off`, { write_off_amount: '100' });
    assert.equal(noReason.statusCode, 422);
    assert.match(noReason.body, /Say why it is written off\./);
    assert.match(noReason.body, /name="write_off_amount"[^>]*value="100"/);
    const tooMuch = await post(owner, `${href}/write-off`, {
      write_off_amount: '1,000.01',
      write_off_reason: 'Gone abroad',
    });
    assert.equal(tooMuch.statusCode, 422);
    assert.match(tooMuch.body, new RegExp(`More than the plan${APOSTROPHE}s balance of ₦1,000\\.00\\.`));
    assert.equal((await planOf(api, plan.id)).balance, 100_000);

    const once = { write_off_amount: '400', write_off_reason: 'Gone abroad', idempotency_key: randomUUID() };
    const written = await post(owner, `${href}/write-off`, once);
    assert.equal(written.statusCode, 303, written.body);
    const doubled = await post(owner, `${href}/write-off`, once);
    assert.equal(doubled.statusCode, 303, 'a double submit is answered as the first');
    assert.equal(written.headers.location, `${href}?done=written_off`);
    const after = await planOf(api, plan.id);
    assert.equal(after.balance, 60_000);
    assert.equal(after.amount, 60_000);
    page = await consoleGet(t, owner, `${href}?done=written_off`);
    assert.match(page.body, /The write-off was recorded\./);
    assert.match(page.body, /₦400\.00 written off [^<]*: Gone abroad\. Nothing has moved since/);
    assert.match(page.body, /Reverse the last write-off/);

    const reversed = await post(owner, `${href}/write-off/reverse`, {});
    assert.equal(reversed.statusCode, 303, reversed.body);
    assert.equal(reversed.headers.location, `${href}?done=write_off_reversed`);
    assert.equal((await planOf(api, plan.id)).balance, 100_000);
    page = await consoleGet(t, owner, `${href}?done=write_off_reversed`);
    assert.match(page.body, /The write-off was reversed/);
    assert.doesNotMatch(page.body, /Reverse the last write-off/);
    const twice = await post(owner, `${href}/write-off/reverse`, {});
    assert.equal(twice.statusCode, 409);
    assert.match(twice.body, /is already reversed/);

    const whole = await post(owner, `${href}/write-off`, { write_off_reason: 'Bankrupt' });
    assert.equal(whole.statusCode, 303, whole.body);
    const done = await planOf(api, plan.id);
    assert.equal(done.balance, 0);
    assert.equal(done.status, 'completed');
    page = await consoleGet(t, owner, href);
    assert.match(page.body, /<span class="status bad">written off<\/span>/);
    assert.match(page.body, /Reverse the last write-off/, 'a completed plan can still be reversed');
    assert.doesNotMatch(page.body, /<summary>Write off<\/summary>/);
  });

  test('late fees show as such with Waive…; an owner waives one with a reason; a collector cannot', async () => {
    const owner = await consolePerson(t, 'owner');
    const { api } = owner.workspace;
    const collector = await consolePerson(t, 'collector', owner.workspace);
    const customer = await newCustomer(api);
    const plan = await newTrack(api, { customerId: customer.id, title: 'Generator', amount: 100_000 });
    await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'one_time',
      fixed_amount: 100_000,
      start_date: '2028-03-12T09:00:00Z',
      collection_method: 'manual',
      late_fee: { type: 'fixed', value: 5_000, every_days: null, grace_days: 1 },
    });
    const moved = await api.post('/account/test-clock/advance', { days: 5 });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const [fee] = (await listOf(api, `/obligations?track_id=${plan.id}`)).filter((o) => o.kind === 'fee');
    assert.ok(fee, 'a fee was charged');
    assert.equal((await planOf(api, plan.id)).balance, 105_000);
    const href = `/console/plans/${plan.id}`;
    const waiveHref = `${href}/obligations/${fee.id}/waive`;

    let page = await consoleGet(t, owner, href);
    assert.match(
      page.body,
      /<strong>Late fee<\/strong> on the instalment due <span class="nowrap">12 Mar 2028<\/span>/,
    );
    assert.match(page.body, new RegExp(`href="${waiveHref}"[^>]*>Waive…</a>`));
    const seen = await consoleGet(t, collector, href);
    assert.match(seen.body, /<strong>Late fee<\/strong>/);
    assert.doesNotMatch(seen.body, /Waive…/);
    assert.equal((await consoleGet(t, collector, waiveHref)).statusCode, 403);
    assert.equal((await post(collector, waiveHref, { waive_reason: 'x' })).statusCode, 403);

    const form = await consoleGet(t, owner, waiveHref);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /Waiving lowers the plan(&#39;|&#x27;|')s balance by ₦50\.00/);
    const noReason = await post(owner, waiveHref, { waive_reason: '  ' });
    assert.equal(noReason.statusCode, 422);
    assert.match(noReason.body, /Say why the fee is waived\./);
    const instalment = (await listOf(api, `/obligations?track_id=${plan.id}`)).find(
      (o) => o.kind === 'instalment',
    );
    assert.equal((await consoleGet(t, owner, `${href}/obligations/${instalment?.id}/waive`)).statusCode, 404);

    const waived = await post(owner, waiveHref, { waive_reason: 'First time late' });
    assert.equal(waived.statusCode, 303, waived.body);
    assert.equal(waived.headers.location, `${href}?done=fee_waived`);
    assert.equal((await planOf(api, plan.id)).balance, 100_000);
    page = await consoleGet(t, owner, `${href}?done=fee_waived`);
    assert.match(page.body, /The late fee was waived\./);
    assert.match(page.body, /<span class="status">waived<\/span>/);
    assert.doesNotMatch(page.body, /Waive…/);
    const twice = await post(owner, waiveHref, { waive_reason: 'Again' });
    assert.equal(twice.statusCode, 409);
    assert.match(twice.body, /This fee is no longer open/);
  });

  test('a settlement quote shows its figures and records the payment that settles the plan', async () => {
    const collector = await consolePerson(t, 'collector');
    const { api } = collector.workspace;
    const viewer = await consolePerson(t, 'viewer', collector.workspace);
    const plan = await overduePlan(api, 'Television');
    const href = `/console/plans/${plan.id}`;
    assert.match(
      (await consoleGet(t, collector, href)).body,
      /<button type="submit" class="secondary">Settlement quote<\/button>/,
    );

    const badDay = await consoleGet(t, collector, `${href}/settlement-quote?as_of=2028-03-01`);
    assert.equal(badDay.statusCode, 422);
    assert.match(badDay.body, /Settle on/);

    const quote = await consoleGet(t, collector, `${href}/settlement-quote?as_of=2028-03-10`);
    assert.equal(quote.statusCode, 200, quote.body);
    assert.match(quote.body, /Settles the plan<\/div><div class="value">₦1,000\.00/);
    assert.match(quote.body, /Discount<\/div><div class="value">₦0\.00/);
    assert.match(quote.body, /Late fees included<\/div><div class="value">₦0\.00/);
    assert.match(quote.body, /valid until 11 Mar 2028, 00:00/);
    const quoteId = /name="settlement_quote_id" value="(sq_[^"]+)"/.exec(quote.body)?.[1];
    assert.ok(quoteId);
    const looked = await consoleGet(t, viewer, `${href}/settlement-quote`);
    assert.equal(looked.statusCode, 200);
    assert.doesNotMatch(looked.body, /Record this payment/);
    const byViewer = await post(viewer, `${href}/settlement-quote`, {
      settlement_quote_id: quoteId,
      amount: '1000.00',
    });
    assert.equal(byViewer.statusCode, 403);

    const wrong = await post(collector, `${href}/settlement-quote`, {
      settlement_quote_id: quoteId,
      amount: '999.00',
      method: 'cash',
    });
    assert.equal(wrong.statusCode, 422);
    assert.match(wrong.body, /A payment with this quote must be its amount/);

    const paid = await post(collector, `${href}/settlement-quote`, {
      settlement_quote_id: quoteId,
      amount: '1000.00',
      method: 'bank_transfer',
      reference: 'SETTLE-1',
    });
    assert.equal(paid.statusCode, 303, paid.body);
    assert.equal(paid.headers.location, `${href}?done=settled`);
    const settled = await planOf(api, plan.id);
    assert.equal(settled.status, 'completed');
    assert.equal(settled.balance, 0);
    const [payment] = await listOf(api, `/tracks/${plan.id}/payments`);
    assert.equal(payment?.method, 'bank_transfer');
    assert.equal(payment?.reference, 'SETTLE-1');
    const page = await consoleGet(t, collector, `${href}?done=settled`);
    assert.match(page.body, /the plan is settled/);
    assert.doesNotMatch(page.body, /Settlement quote<\/button>/);
  });

  test("Today's work shows what of each overdue account is promised or disputed", async () => {
    const collector = await consolePerson(t, 'collector');
    const { api } = collector.workspace;
    const promised = await overduePlan(api, 'Promised fridge');
    const disputed = await overduePlan(api, 'Disputed cooker');
    await overduePlan(api, 'Plain freezer');
    const promise = await api.post('/promises', { trackId: promised.id, amount: 20_000, date: '2028-03-14' });
    assert.equal(promise.status, 201, JSON.stringify(promise.body));
    const opened = await post(collector, `/console/plans/${disputed.id}/disputes`, {
      dispute_reason: 'already_paid',
    });
    assert.equal(opened.statusCode, 303, opened.body);

    const today = await consoleGet(t, collector, '/console/today');
    assert.equal(today.statusCode, 200);
    const cards = today.body.split('<li class="card work">').slice(1);
    const card = (title: string) => cards.find((c) => c.includes(title)) ?? '';
    assert.match(card('Promised fridge'), /<strong>₦200\.00<\/strong> promised: reminders and debits wait\./);
    assert.doesNotMatch(card('Promised fridge'), /disputed/);
    assert.match(card('Disputed cooker'), /<strong>₦1,000\.00<\/strong> disputed/);
    assert.doesNotMatch(card('Plain freezer'), /promised|disputed/);
  });
});
