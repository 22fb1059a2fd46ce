import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type BusinessSettings, setBusiness } from '../helpers/business.js';
import { newSchedule } from '../helpers/collections.js';
import { answer, consent, formTokenOf, openPage, pathOf } from '../helpers/consent.js';
import { newCustomer, newTrack, newWorkspace } from '../helpers/factories.js';

// The words a payer reads on the consent pages: what will be collected, by whom, through whom, until when, and
// what happens after the answer, in the business's own time zone and colours.

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const ADE: BusinessSettings = {
  name: 'Ade Motors',
  support_email: 'help@ademotors.ng',
  support_phone: '+2348031234567',
  brand_color: '#0b6e4f',
};

/** A Lagos workspace of a business with its settings (Ade Motors, with its contact and colour, unless given). */
async function lagosBusiness(settings: BusinessSettings = ADE) {
  const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
  await setBusiness(t, ws.workspaceId, settings);
  return ws;
}

/** A generator of ₦40,000.00 in monthly instalments of ₦15,000.00 from 25 Jan 2028: the last takes ₦10,000.00. */
async function generatorPlan(api: Client, body: Record<string, unknown> = {}) {
  const customer = await newCustomer(api, { name: 'Amaka Eze' });
  const plan = await newTrack(api, { customerId: customer.id, amount: 4_000_000, title: 'Generator' });
  const schedule = await newSchedule(api, {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'installment_sequence',
    fixed_amount: 1_500_000,
    start_date: '2028-01-25T09:00:00Z',
    collection_method: 'auto_debit',
    ...body,
  });
  return { customer, plan, schedule };
}

async function newMandate(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/payment-mandates', { payer_type: 'customer', provider: 'gatewayA', ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

const entities: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};
const unescaped = (html: string) => html.replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e] as string);

/** The agreement as the page shows it, unescaped. */
function agreementOf(html: string): string {
  const match = /<p class="agreement">([^<]*)<\/p>/.exec(html);
  assert.ok(match, 'the page shows an agreement');
  return unescaped(match[1] as string);
}

/** The dates and amounts of the page's table of collections. */
function rowsOf(html: string): string[][] {
  return [...html.matchAll(/<tr><td>([^<]*)<\/td><td class="amount">([^<]*)<\/td><\/tr>/g)].map((m) => [
    m[1] as string,
    m[2] as string,
  ]);
}

/** Every style element of the page is allowed by the page's Content-Security-Policy, by its hash. */
function assertStylesAllowed(html: string, csp: string) {
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] as string);
  assert.ok(styles.length > 0);
  for (const style of styles) {
    const hash = createHash('sha256').update(style).digest('base64');
    assert.ok(csp.includes(`'sha256-${hash}'`), `the CSP allows ${style.slice(0, 60)}`);
  }
  assert.doesNotMatch(csp, /unsafe-inline|script-src/);
}

const CONTACT_LIST =
  '<ul class="contact"><li>E-mail: <a href="mailto:help@ademotors.ng">help@ademotors.ng</a></li><li>Phone: <a href="tel:+2348031234567">+234 803 123 4567</a></li></ul>';

describe('what the consent page says will be collected', () => {
  test('each amount, how many, the total, the first and last dates, the plan, the business and its contact, the provider by its name, the expiry in Lagos time', async () => {
    const { api } = await lagosBusiness();
    const { schedule } = await generatorPlan(api);
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    const page = await openPage(t, pathOf(mandate.consent_url));
    assert.equal(page.statusCode, 200);
    assert.equal(
      agreementOf(page.body),
      'Ade Motors may collect ₦40,000.00 in all from Amaka Eze for Generator by automatic debit through Gateway A, in 3 payments every month from Tuesday 25 January 2028 to Saturday 25 March 2028: 2 payments of ₦15,000.00 and a last payment of ₦10,000.00. You can withdraw this authority at any time by asking Ade Motors.',
    );
    assert.deepEqual(rowsOf(page.body), [
      ['Tuesday 25 January 2028', '₦15,000.00'],
      ['Friday 25 February 2028', '₦15,000.00'],
      ['Saturday 25 March 2028', '₦10,000.00'],
    ]);
    for (const shown of [
      '<h1>Authorise automatic payments to Ade Motors</h1>',
      '<dt>Business</dt><dd>Ade Motors</dd>',
      '<dt>Payer</dt><dd>Amaka Eze</dd>',
      '<dt>For</dt><dd>Generator</dd>',
      '<dt>Paid through</dt><dd>Gateway A</dd>',
      // 24 hours after 12:00 UTC is 13:00 in Lagos (UTC+1).
      'This link works once, until 21 Jan 2028, 13:00 (Lagos time).',
      `<p>Questions about these payments? Contact Ade Motors:</p>${CONTACT_LIST}`,
      '<header class="masthead">Ade Motors</header>',
    ]) {
      assert.ok(page.body.includes(shown), `the page shows ${shown}`);
    }
    // Bounded by characters a base64url token cannot hold next to it, so a random token in a link cannot match.
    assert.doesNotMatch(
      page.body,
      /gatewayA|(?<![\w-])UTC(?![\w-])|(?<![\w-])2028-01-\d\d/,
      'no internal name, no UTC time, no ISO date',
    );
    assert.doesNotMatch(page.body, /<script/i);
  });

  test('the brand colour is on the masthead and the main button, with text that contrasts, and the CSP allows exactly its style', async () => {
    const shades: [string, string][] = [
      ['#0b6e4f', '#fff'],
      ['#ffd400', '#000'],
      ['#777777', '#000'],
      ['#6a6a6a', '#fff'],
    ];
    for (const [brand, text] of shades) {
      const { api } = await lagosBusiness({ ...ADE, brand_color: brand });
      const { schedule } = await generatorPlan(api);
      const mandate = await newMandate(api, { schedule_id: schedule.id });
      const page = await openPage(t, pathOf(mandate.consent_url));
      assert.ok(
        page.body.includes(
          `.masthead, .approve { background: ${brand}; color: ${text}; border-color: ${brand}; }`,
        ),
        `${brand} takes ${text} text`,
      );
      assertStylesAllowed(page.body, page.headers['content-security-policy'] as string);
    }
    // A colour that is not #rrggbb (it could not be set so) is left out rather than written into the style.
    const { api } = await lagosBusiness({ ...ADE, brand_color: 'red;}body{display:none' });
    const { schedule } = await generatorPlan(api);
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    const page = await openPage(t, pathOf(mandate.consent_url));
    assert.equal([...page.body.matchAll(/<style>/g)].length, 1);
    assert.doesNotMatch(page.body, /display:none/);
    assertStylesAllowed(page.body, page.headers['content-security-policy'] as string);
  });

  test('equal amounts: "3 payments of"; one payment: "once, on"; the zone is named for a New York business', async () => {
    const { api } = await newWorkspace(t, { timezone: 'America/New_York' });
    const customer = await newCustomer(api, { name: 'Chidi Okeke' });
    const plan = await newTrack(api, { customerId: customer.id, amount: 90_000, title: 'Phone' });
    const monthly = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'monthly',
      fixed_amount: 30_000,
      start_date: '2028-01-25T17:00:00Z',
      end_date: '2028-03-25T17:00:00Z',
      collection_method: 'auto_debit',
    });
    const page = await openPage(t, pathOf((await newMandate(api, { schedule_id: monthly.id })).consent_url));
    assert.equal(
      agreementOf(page.body),
      'Test workspace may collect ₦900.00 in all from Chidi Okeke for Phone by automatic debit through Gateway A, in 3 payments of ₦300.00, every month from Tuesday 25 January 2028 to Saturday 25 March 2028. You can withdraw this authority at any time by asking Test workspace.',
    );
    assert.ok(page.body.includes('until 21 Jan 2028, 07:00 (New York time).'));
    assert.ok(page.body.includes('<p>Questions about these payments? Contact Test workspace.</p>'));

    const single = await newTrack(api, { customerId: customer.id, amount: 45_000, title: 'Sewing machine' });
    const once = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: single.id,
      frequency: 'one_time',
      fixed_amount: 45_000,
      start_date: '2028-02-01T17:00:00Z',
      collection_method: 'auto_debit',
    });
    const one = await openPage(t, pathOf((await newMandate(api, { schedule_id: once.id })).consent_url));
    assert.equal(
      agreementOf(one.body),
      'Test workspace may collect ₦450.00 from Chidi Okeke for Sewing machine by automatic debit through Gateway A, once, on Tuesday 1 February 2028. You can withdraw this authority at any time by asking Test workspace.',
    );
  });

  test('a schedule with no end and no plan: the amount, how often, from when, and that it continues until cancelled', async () => {
    const { api } = await lagosBusiness();
    const customer = await newCustomer(api, { name: 'Bisi Ade' });
    const schedule = await newSchedule(api, {
      target_type: 'generic_collection',
      frequency: 'weekly',
      interval: 2,
      fixed_amount: 250_000,
      start_date: '2028-02-01T09:00:00Z',
      collection_method: 'auto_debit',
    });
    const mandate = await newMandate(api, { payer_id: customer.id, schedule_id: schedule.id });
    const page = await openPage(t, pathOf(mandate.consent_url));
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(
      agreementOf(page.body),
      'Ade Motors may collect ₦2,500.00 every 2 weeks from Bisi Ade by automatic debit through Gateway A, starting Tuesday 1 February 2028 and continuing until cancelled (there is no set number of payments). You can withdraw this authority at any time by asking Ade Motors.',
    );
    assert.deepEqual(rowsOf(page.body), [
      ['Tuesday 1 February 2028', '₦2,500.00'],
      ['Tuesday 15 February 2028', '₦2,500.00'],
      ['Tuesday 29 February 2028', '₦2,500.00'],
    ]);
    assert.match(page.body, /The first payments \(they go on until cancelled\)/);
  });

  test("a plan's schedule with no end date: every payment until the plan's balance is covered, the last taking what is left", async () => {
    const { api } = await lagosBusiness();
    const customer = await newCustomer(api, { name: 'Amaka Eze' });
    const plan = await newTrack(api, { customerId: customer.id, amount: 4_000_000, title: 'Tricycle' });
    const schedule = await newSchedule(api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'weekly',
      fixed_amount: 250_000,
      start_date: '2028-01-25T09:00:00Z',
      collection_method: 'auto_debit',
    });
    const page = await openPage(t, pathOf((await newMandate(api, { schedule_id: schedule.id })).consent_url));
    // 16 weekly payments of ₦2,500.00: 12 made ahead, 4 more as weeks pass.
    assert.equal(
      agreementOf(page.body),
      'Ade Motors may collect ₦40,000.00 in all from Amaka Eze for Tricycle by automatic debit through Gateway A, in 16 payments of ₦2,500.00, every week from Tuesday 25 January 2028 to Tuesday 9 May 2028. You can withdraw this authority at any time by asking Ade Motors.',
    );
    // A long list: the first three, how many are left out, and the last.
    assert.deepEqual(rowsOf(page.body), [
      ['Tuesday 25 January 2028', '₦2,500.00'],
      ['Tuesday 1 February 2028', '₦2,500.00'],
      ['Tuesday 8 February 2028', '₦2,500.00'],
      ['Tuesday 9 May 2028', '₦2,500.00'],
    ]);
    assert.match(page.body, /… 12 more payments …/);
  });

  test('what is already paid is left out: the first open instalment asks only what is left of it', async () => {
    const { api } = await lagosBusiness();
    const { plan, schedule } = await generatorPlan(api);
    assert.equal(
      (await api.post('/payments', { trackId: plan.id, amount: 500_000, method: 'cash' })).status,
      201,
    );
    const page = await openPage(t, pathOf((await newMandate(api, { schedule_id: schedule.id })).consent_url));
    assert.equal(
      agreementOf(page.body),
      'Ade Motors may collect ₦35,000.00 in all from Amaka Eze for Generator by automatic debit through Gateway A, in 3 payments every month from Tuesday 25 January 2028 to Saturday 25 March 2028: a first payment of ₦10,000.00, one payment of ₦15,000.00 and a last payment of ₦10,000.00. You can withdraw this authority at any time by asking Ade Motors.',
    );
  });

  test('a mandate for no schedule: the amounts agreed, without figures', async () => {
    const { api } = await lagosBusiness();
    const customer = await newCustomer(api, { name: 'Amaka Eze' });
    const page = await openPage(t, pathOf((await newMandate(api, { payer_id: customer.id })).consent_url));
    assert.equal(
      agreementOf(page.body),
      'Ade Motors may collect the amounts agreed with you from Amaka Eze by automatic debit through Gateway A. You can withdraw this authority at any time by asking Ade Motors.',
    );
    assert.doesNotMatch(page.body, /<table/);
  });
});

describe('after the answer', () => {
  test('approving keeps the words shown as evidence; the page says when the first payment is collected and how to stop them', async () => {
    const { api } = await lagosBusiness();
    const { schedule } = await generatorPlan(api);
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    const path = pathOf(mandate.consent_url);
    const shown = await openPage(t, path);
    const res = await answer(t, path, { decision: 'approve', form_token: formTokenOf(shown.body) });
    assert.equal(res.statusCode, 200, res.body);
    const evidence = (await api.get(`/payment-mandates/${mandate.id}`)).body.data.consent;
    assert.equal(evidence.text_shown, agreementOf(shown.body));
    assert.equal(evidence.text_sha256, createHash('sha256').update(agreementOf(shown.body)).digest('hex'));
    for (const said of [
      '<h1>You approved automatic payments to Ade Motors</h1>',
      '<h2>What happens next</h2><p>The first payment, <strong>₦15,000.00</strong>, will be collected on Tuesday 25 January 2028 from your account through Gateway A, and each of the others on its date.</p>',
      `<p>You can withdraw this authority at any time. To stop these payments, or if anything is wrong, contact Ade Motors:</p>${CONTACT_LIST}`,
    ]) {
      assert.ok(res.body.includes(said), `the page says ${said}`);
    }
    assert.equal(agreementOf(res.body), evidence.text_shown, 'what was approved, again');
    assertStylesAllowed(res.body, res.headers['content-security-policy'] as string);
  });

  test('an answer counts only for the words shown: once a payment changes them, the old page is refused and the new one counts', async () => {
    const { api } = await lagosBusiness();
    const { plan, schedule } = await generatorPlan(api);
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    const path = pathOf(mandate.consent_url);
    const before = await openPage(t, path);
    assert.equal(
      (await api.post('/payments', { trackId: plan.id, amount: 500_000, method: 'cash' })).status,
      201,
    );
    const stale = await answer(t, path, { decision: 'approve', form_token: formTokenOf(before.body) });
    assert.equal(stale.statusCode, 403);
    assert.match(stale.body, /what will be collected has changed since/);
    assert.equal((await api.get(`/payment-mandates/${mandate.id}`)).body.data.status, 'pending');

    const now = await openPage(t, path);
    assert.notEqual(agreementOf(now.body), agreementOf(before.body));
    assert.match(agreementOf(now.body), /₦35,000\.00 in all/);
    const res = await answer(t, path, { decision: 'approve', form_token: formTokenOf(now.body) });
    assert.equal(res.statusCode, 200, res.body);
    const evidence = (await api.get(`/payment-mandates/${mandate.id}`)).body.data.consent;
    assert.equal(evidence.text_shown, agreementOf(now.body));
  });

  test('a first payment already due is collected right away, and the page says so', async () => {
    const { api } = await lagosBusiness();
    const { schedule } = await generatorPlan(api, { start_date: '2028-01-18T09:00:00Z' });
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    const res = await consent(t, mandate.consent_url, 'approve');
    assert.ok(
      res.body.includes(
        'The first payment, <strong>₦15,000.00</strong>, was due on Tuesday 18 January 2028, so it is collected right away from your account through Gateway A',
      ),
      res.body,
    );
  });

  test('declining: nothing will be taken, what is still owed and how to pay otherwise', async () => {
    const { api } = await lagosBusiness();
    const { schedule } = await generatorPlan(api);
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    const res = await consent(t, mandate.consent_url, 'decline');
    assert.equal(res.statusCode, 200);
    for (const said of [
      '<h1>You declined</h1>',
      'Ade Motors will not collect payments from you by automatic debit. Nothing was authorised and nothing will be taken from your account.',
      '<p>What you owe is still due: the next payment, <strong>₦15,000.00</strong>, on Tuesday 25 January 2028.</p>',
      `<p>To pay another way, or for a new link if you change your mind, contact Ade Motors:</p>${CONTACT_LIST}`,
    ]) {
      assert.ok(res.body.includes(said), `the page says ${said}`);
    }
  });
});

describe('links that show no form', () => {
  test('a used link names the business and how to reach it, in its colours', async () => {
    const { api } = await lagosBusiness();
    const { schedule } = await generatorPlan(api);
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    await consent(t, mandate.consent_url, 'approve');
    const page = await openPage(t, pathOf(mandate.consent_url));
    assert.equal(page.statusCode, 410);
    for (const said of [
      '<h1>Link already used</h1>',
      'This link to authorise automatic payments to Ade Motors has already been answered, so it cannot be used again. Nothing was changed.',
      `<p>To change your answer or ask about your payments, contact Ade Motors:</p>${CONTACT_LIST}`,
      '<header class="masthead">Ade Motors</header>',
    ]) {
      assert.ok(page.body.includes(said), `the page says ${said}`);
    }
    assertStylesAllowed(page.body, page.headers['content-security-policy'] as string);
    // Its form, posted again, gets the same page.
    const replay = await answer(t, pathOf(mandate.consent_url), { decision: 'decline', form_token: 'ft_x' });
    assert.equal(replay.statusCode, 410);
    assert.ok(
      replay.body.includes('to authorise automatic payments to Ade Motors has already been answered'),
    );
  });

  test('an expired link names the business and where to ask for a new one', async () => {
    const { api } = await lagosBusiness({ name: 'Ade Motors', support_phone: '+2348031234567' });
    const { schedule } = await generatorPlan(api);
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    await api.post('/account/test-clock/advance', { hours: 25 });
    const page = await openPage(t, pathOf(mandate.consent_url));
    assert.equal(page.statusCode, 410);
    assert.ok(
      page.body.includes(
        '<p>This link to authorise automatic payments to Ade Motors has expired. Nothing was changed.</p><p>For a new link, contact Ade Motors:</p><ul class="contact"><li>Phone: <a href="tel:+2348031234567">+234 803 123 4567</a></li></ul>',
      ),
      page.body,
    );
  });

  test('an unknown link stays neutral: no business, no colour', async () => {
    await lagosBusiness();
    const page = await openPage(t, `/consent/ct_${'B'.repeat(43)}`);
    assert.equal(page.statusCode, 404);
    assert.match(page.body, /This consent link is not valid/);
    assert.doesNotMatch(page.body, /Ade Motors|masthead"|mailto:|tel:/);
    assert.equal([...page.body.matchAll(/<style>/g)].length, 1);
  });
});
