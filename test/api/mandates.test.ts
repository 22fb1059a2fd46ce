import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import { setProvider } from '../../src/modules/providers/providers.service.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp, withProvider } from '../helpers/app.js';
import { cliEnv, cliJson } from '../helpers/cli.js';
import { answer, consent, formTokenOf, openPage, pathOf } from '../helpers/consent.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

/** A plan of 90,000 with a monthly schedule of 30,000 collected by automatic debit. */
async function scheduledPlan(api: Client) {
  const customer = await newCustomer(api, { name: 'Chidi Okeke' });
  const plan = await newTrack(api, { customerId: customer.id, amount: 90_000, title: 'Phone' });
  const res = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: plan.id,
    frequency: 'monthly',
    fixed_amount: 30_000,
    start_date: '2028-01-25T09:00:00Z',
    end_date: '2028-03-25T09:00:00Z',
    collection_method: 'auto_debit',
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { customer, plan, schedule: res.body.data };
}

async function newMandate(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/payment-mandates', { payer_type: 'customer', provider: 'gatewayA', ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

describe('POST /payment-mandates', () => {
  test('a pending mandate with a one-time consent URL that works for 24 hours; reads never show the URL again', async () => {
    const { api } = await newWorkspace(t);
    const { customer, schedule } = await scheduledPlan(api);
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    assert.equal(mandate.status, 'pending');
    assert.equal(mandate.payer_id, customer.id, 'the payer comes from the plan of the schedule');
    assert.equal(mandate.schedule_id, schedule.id);
    assert.match(mandate.consent_url, /^http:\/\/localhost:\d+\/consent\/ct_[A-Za-z0-9_-]{43}$/);
    assert.equal(mandate.consent_expires_at, '2028-01-21T12:00:00.000Z');
    assert.equal(mandate.consented_at, null);
    const read = (await api.get(`/payment-mandates/${mandate.id}`)).body.data;
    assert.equal(read.consent_url, null);
    assert.deepEqual({ ...read, consent_url: mandate.consent_url }, mandate);
    const stored = await t.ctx.db
      .selectFrom('mandates')
      .selectAll()
      .where('id', '=', mandate.id)
      .executeTakeFirstOrThrow();
    const token = mandate.consent_url.split('/').pop();
    assert.equal(stored.consent_token_hash, createHash('sha256').update(token).digest('hex'));
    assert.ok(!JSON.stringify(stored).includes(token), 'the token itself is not stored');
    const events = (await api.get('/events?type=mandate.created')).body.data.items;
    assert.equal(events[0].data.object.id, mandate.id);
    assert.equal(events[0].data.object.consent_url, null);
  });

  const refusals: [
    string,
    (ids: { customer: string; schedule: string; other: string }) => Record<string, unknown>,
    number,
    string,
  ][] = [
    ['another payer type', (ids) => ({ payer_type: 'business', payer_id: ids.customer }), 422, 'payer_type'],
    ['no provider', (ids) => ({ payer_id: ids.customer, provider: undefined }), 422, 'provider'],
    [
      'a provider name with spaces',
      (ids) => ({ payer_id: ids.customer, provider: 'gateway A' }),
      422,
      'provider',
    ],
    ['no payer and no schedule', () => ({}), 422, 'payer_id'],
    ['an unknown payer', () => ({ payer_id: 'cus_01JD7Z5M2Q8R4T6V9X1Y3Z5A7B' }), 404, 'payer_id'],
    ['an unknown schedule', () => ({ schedule_id: 'sch_01JD7ZA1B2C3D4E5F6G7H8J9K0' }), 404, 'schedule_id'],
    [
      'a payer who is not the customer of the schedule plan',
      (ids) => ({ payer_id: ids.other, schedule_id: ids.schedule }),
      422,
      'payer_id',
    ],
    ['an unknown field', (ids) => ({ payer_id: ids.customer, amount: 5 }), 422, 'amount'],
  ];
  for (const [name, body, status, field] of refusals) {
    test(`${name}: ${status} naming ${field}, nothing made`, async () => {
      const { api } = await newWorkspace(t);
      const { customer, schedule } = await scheduledPlan(api);
      const other = await newCustomer(api);
      const res = await api.post('/payment-mandates', {
        payer_type: 'customer',
        provider: 'gatewayA',
        ...body({ customer: customer.id, schedule: schedule.id, other: other.id }),
      });
      assert.equal(res.status, status, JSON.stringify(res.body));
      const details = res.body.error.details;
      assert.ok(details.fields?.[field] ?? details.field === field, JSON.stringify(res.body));
      assert.equal((await api.get('/payment-mandates')).body.data.items.length, 0);
    });
  }

  test('a cancelled schedule takes no mandate: 409 invalid_state', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await scheduledPlan(api);
    await api.patch(`/collection-schedules/${schedule.id}`, { action: 'cancel' });
    const res = await api.post('/payment-mandates', {
      payer_type: 'customer',
      provider: 'gatewayA',
      schedule_id: schedule.id,
    });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body.error.details, { status: 'cancelled', action: 'create_mandate' });
  });
});

describe('the consent page', () => {
  test('shows the business, the payer, the provider and what will be collected, as HTML with strict headers', async () => {
    const { api } = await newWorkspace(t);
    const { schedule } = await scheduledPlan(api);
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    const page = await openPage(t, pathOf(mandate.consent_url));
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    const csp = page.headers['content-security-policy'] as string;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /script-src|unsafe-inline/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['cache-control'], 'no-store');
    for (const text of [
      'Test workspace',
      'Chidi Okeke',
      'Gateway A',
      '3 payments of ₦300.00, every month',
      'Tuesday 25 January 2028',
      'Friday 25 February 2028',
      'Saturday 25 March 2028',
    ]) {
      assert.ok(page.body.includes(text), `the page shows ${text}`);
    }
    assert.doesNotMatch(page.body, /<script/i);
    assert.match(page.body, /<meta name="viewport" content="width=device-width/);
    assert.match(page.body, /<button[^>]*value="approve"/);
    assert.match(page.body, /<button[^>]*value="decline"/);
  });

  test('approving keeps the evidence, activates the mandate in test mode, and the link then works no more', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule } = await scheduledPlan(api);
    const mandate = await newMandate(api, { schedule_id: schedule.id });
    const res = await consent(t, mandate.consent_url, 'approve');
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /You approved automatic payments to Test workspace/);
    const after = (await api.get(`/payment-mandates/${mandate.id}`)).body.data;
    assert.equal(after.status, 'active');
    assert.equal(after.consented_at, NOW);
    assert.equal(after.activated_at, NOW);
    assert.equal(after.consent.ip, '192.0.2.10');
    assert.equal(after.consent.user_agent, 'TestBrowser/1.0');
    assert.match(
      after.consent.text_shown,
      /^Test workspace may collect ₦900\.00 in all from Chidi Okeke for Phone by automatic debit through Gateway A, in 3 payments of ₦300\.00, every month from Tuesday 25 January 2028 to Saturday 25 March 2028\./,
    );
    assert.equal(
      after.consent.text_sha256,
      createHash('sha256').update(after.consent.text_shown).digest('hex'),
    );

    const ledger = (await api.get(`/tracks/${plan.id}/ledger?type=mandate.activated`)).body.data.items;
    assert.equal(ledger.length, 1);
    assert.equal(ledger[0].amount, 0);
    assert.equal(ledger[0].balanceAfter, 90_000);
    const activated = (await api.get('/events?type=mandate.activated')).body.data.items;
    assert.deepEqual(activated[0].data.previous_attributes, { status: 'pending' });

    const again = await openPage(t, pathOf(mandate.consent_url));
    assert.equal(again.statusCode, 410);
    assert.match(again.body, /already been answered/);
    const replay = await answer(t, pathOf(mandate.consent_url), {
      decision: 'decline',
      form_token: 'ft_anything',
    });
    assert.equal(replay.statusCode, 410);
    assert.equal((await api.get(`/payment-mandates/${mandate.id}`)).body.data.status, 'active');
  });

  test('declining makes the mandate failed, with its event', async () => {
    const { api } = await newWorkspace(t);
    const { customer } = await scheduledPlan(api);
    const mandate = await newMandate(api, { payer_id: customer.id });
    const res = await consent(t, mandate.consent_url, 'decline');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /You declined/);
    const after = (await api.get(`/payment-mandates/${mandate.id}`)).body.data;
    assert.equal(after.status, 'failed');
    assert.equal(after.failure_reason, 'declined by the payer');
    assert.equal(after.consent, null);
    assert.equal((await api.get('/events?type=mandate.failed')).body.data.items.length, 1);
  });

  test('a forged post changes nothing: no form token, a wrong one, or from another site', async () => {
    const { api } = await newWorkspace(t);
    const { customer } = await scheduledPlan(api);
    const mandate = await newMandate(api, { payer_id: customer.id });
    const path = pathOf(mandate.consent_url);
    const formToken = formTokenOf((await openPage(t, path)).body);
    const attempts = [
      await answer(t, path, { decision: 'approve' }),
      await answer(t, path, { decision: 'approve', form_token: 'ft_guessed' }),
      await answer(
        t,
        path,
        { decision: 'approve', form_token: formToken },
        { origin: 'https://evil.example' },
      ),
      await answer(
        t,
        path,
        { decision: 'approve', form_token: formToken },
        { 'sec-fetch-site': 'cross-site' },
      ),
    ];
    assert.deepEqual(
      attempts.map((r) => r.statusCode),
      [400, 403, 403, 403],
    );
    for (const r of attempts) assert.match(r.headers['content-type'] as string, /^text\/html/);
    assert.equal((await api.get(`/payment-mandates/${mandate.id}`)).body.data.status, 'pending');
    // The page's own post still works.
    const own = await answer(
      t,
      path,
      { decision: 'approve', form_token: formToken },
      { origin: new URL(mandate.consent_url).origin },
    );
    assert.equal(own.statusCode, 200, own.body);
  });

  test('unknown, malformed and JSON requests get HTML pages, never the API envelope', async () => {
    const unknown = await openPage(t, '/consent/ct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /not valid/);
    const malformed = await openPage(t, '/consent/<script>');
    assert.equal(malformed.statusCode, 404);
    assert.doesNotMatch(malformed.body, /<script>/);
    const nowhere = await openPage(t, '/consent/a/b');
    assert.equal(nowhere.statusCode, 404);
    assert.match(nowhere.headers['content-type'] as string, /^text\/html/);
    const json = await t.app.inject({
      method: 'POST',
      url: '/consent/ct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      headers: { 'content-type': 'application/json' },
      payload: '{"decision":"approve"}',
    });
    assert.equal(json.statusCode, 400);
    assert.match(json.headers['content-type'] as string, /^text\/html/);
  });

  test('a malformed token (NUL, control characters, overlong, bad encoding) gets the unknown-link page on GET and POST and every sub-path, never 5xx', async () => {
    const { api } = await newWorkspace(t);
    const { customer } = await scheduledPlan(api);
    const mandate = await newMandate(api, { payer_id: customer.id });
    const real = pathOf(mandate.consent_url);
    const token = `ct_${'A'.repeat(43)}`;
    const paths = [
      `${real}%00`,
      `/consent/${token}%00`,
      '/consent/%00',
      `/consent/%00${token}`,
      `/consent/${token}%01`,
      `/consent/${token}%7F`,
      `/consent/${token}%0A`,
      `/consent/${token}%E2%80%8B`,
      `/consent/ct_${'A'.repeat(300)}`,
      `/consent/ct_${'A'.repeat(10_000)}`,
      `/consent/${token}%FF`,
      '/consent/%E0%A4%A',
      '/consent/%',
      '/consent/%C0%AF',
      `/consent/${token}%ED%A0%80`,
      `${real}?x=%00`,
      `${real}?%00=1`,
      `${real}/%00`,
      `${real}/x`,
      `${real}/x/%FF`,
      '/consent/%00/x',
    ];
    let address = 0;
    for (const path of paths) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await t.app.inject({
          method,
          url: path,
          remoteAddress: `203.0.113.${++address}`,
          ...(method === 'POST'
            ? {
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                payload: 'decision=approve&form_token=ft_x',
              }
            : {}),
        });
        const what = `${method} ${path.slice(0, 80)}`;
        assert.equal(res.statusCode, 404, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        assert.match(res.headers['content-type'] as string, /^text\/html/, what);
        assert.match(res.body, /Link not found/, what);
        assert.equal(res.headers['content-security-policy'] !== undefined, true, what);
      }
    }
    const after = (await api.get(`/payment-mandates/${mandate.id}`)).body.data;
    assert.equal(after.status, 'pending');
    assert.equal(after.consented_at, null);
    // The real link still works.
    assert.equal((await openPage(t, real, '203.0.113.200')).statusCode, 200);
  });

  test('one address gets at most 30 requests a minute', async () => {
    const responses = [];
    for (let i = 0; i < 31; i++) responses.push(await openPage(t, '/consent/ct_x', '198.51.100.7'));
    assert.equal(responses[29]?.statusCode, 404);
    assert.equal(responses[30]?.statusCode, 429);
    assert.match(responses[30]?.body ?? '', /Too many requests/);
    assert.equal((await openPage(t, '/consent/ct_x', '198.51.100.8')).statusCode, 404);
  });

  test('consent expires after 24 hours by the test clock: the sweep expires it and the page says so', async () => {
    const { api } = await newWorkspace(t);
    const { customer } = await scheduledPlan(api);
    const early = await newMandate(api, { payer_id: customer.id });
    const late = await newMandate(api, { payer_id: customer.id });
    await api.post('/account/test-clock/advance', { hours: 23 });
    assert.equal((await consent(t, early.consent_url, 'approve')).statusCode, 200);
    const moved = await api.post('/account/test-clock/advance', { hours: 1 });
    assert.equal(moved.body.data.ran['mandates.expire'], 1);
    assert.equal((await api.get(`/payment-mandates/${late.id}`)).body.data.status, 'expired');
    assert.equal((await api.get(`/payment-mandates/${early.id}`)).body.data.status, 'active');
    const page = await openPage(t, pathOf(late.consent_url));
    assert.equal(page.statusCode, 410);
    assert.match(page.body, /expired/);
    const events = (await api.get('/events?type=mandate.expired')).body.data.items;
    assert.equal(events.length, 1);
    assert.equal(events[0].data.object.id, late.id);
  });
});

describe('live mode and provider approval', () => {
  test('a live consent waits, pending, for the provider approval; provider set --approved activates it', async () => {
    const { live, workspaceId } = await newWorkspace(t);
    const customer = await newCustomer(live);
    const mandate = await newMandate(live, { payer_id: customer.id, provider: 'gatewayB' });
    const res = await consent(t, mandate.consent_url, 'approve');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /still has to enable automatic debit/);
    const waiting = (await live.get(`/payment-mandates/${mandate.id}`)).body.data;
    assert.equal(waiting.status, 'pending');
    assert.ok(waiting.consented_at);
    // Consent given: it does not expire.
    assert.equal((await openPage(t, pathOf(mandate.consent_url))).statusCode, 410);

    const env = cliEnv(t.database);
    const unapproved = await cliJson(
      env,
      'provider',
      'set',
      '--workspace',
      workspaceId,
      '--provider',
      'gatewayB',
      '--mode',
      'live',
      '--json',
    );
    assert.equal(unapproved.approved, false);
    assert.match(unapproved.notification_secret, /^pns_/);
    assert.match(unapproved.notification_url, new RegExp(`/api/v1/provider-notifications/${unapproved.id}$`));
    assert.equal((await live.get(`/payment-mandates/${mandate.id}`)).body.data.status, 'pending');

    const approved = await cliJson(
      env,
      'provider',
      'set',
      '--workspace',
      workspaceId,
      '--provider',
      'gatewayB',
      '--mode',
      'live',
      '--approved',
      '--json',
    );
    assert.equal(approved.id, unapproved.id);
    assert.equal(approved.approved, true);
    assert.equal(approved.notification_secret, null, 'the secret is shown once');
    assert.equal(approved.mandates_activated, 1);
    assert.equal((await live.get(`/payment-mandates/${mandate.id}`)).body.data.status, 'active');
  });
});

describe('registration with the provider', () => {
  test('an approved mandate is registered with its provider as it becomes active', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const mandate = await newMandate(api, { payer_id: customer.id, provider: 'gatewayA' });
    assert.equal((await consent(t, mandate.consent_url, 'approve')).statusCode, 200);
    assert.equal((await api.get(`/payment-mandates/${mandate.id}`)).body.data.status, 'active');
    const row = await t.ctx.db
      .selectFrom('mandates')
      .select('provider_mandate_id')
      .where('id', '=', mandate.id)
      .executeTakeFirstOrThrow();
    assert.match(String(row.provider_mandate_id), /^sim_mdt_/);
  });

  test('a provider that cannot be reached leaves the consented mandate pending; the sweep activates it once it answers', async () => {
    const { live, workspaceId } = await newWorkspace(t);
    const customer = await newCustomer(live);
    const mandate = await newMandate(live, { payer_id: customer.id, provider: 'gatewayB' });
    assert.equal((await consent(t, mandate.consent_url, 'approve')).statusCode, 200);
    await setProvider(t.ctx.db, t.clock, { workspaceId, mode: 'live', provider: 'gatewayB', approved: true });
    const scope = { mode: 'live' as const, workspaceId, now: t.clock.now() };
    const unreachable = withProvider(t, () => ({
      createMandate: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    }));
    await runSweepsNow(unreachable, scope);
    const waiting = (await live.get(`/payment-mandates/${mandate.id}`)).body.data;
    assert.equal(waiting.status, 'pending');
    assert.ok(waiting.consented_at);
    await runSweepsNow(t.ctx, scope);
    const active = (await live.get(`/payment-mandates/${mandate.id}`)).body.data;
    assert.equal(active.status, 'active');
    assert.equal((await live.get('/events?type=mandate.activated')).body.data.items.length, 1);
  });
});

describe('POST /payment-mandates/{id}/revoke', () => {
  test('pending and active mandates are revoked, with the reason; anything else is invalid_state', async () => {
    const { api } = await newWorkspace(t);
    const { plan, schedule, customer } = await scheduledPlan(api);
    const pending = await newMandate(api, { payer_id: customer.id });
    const res = await api.post(`/payment-mandates/${pending.id}/revoke`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, 'revoked');
    assert.equal(res.body.data.revocation_reason, null);
    assert.equal(res.body.data.revoked_at, NOW);

    const active = await newMandate(api, { schedule_id: schedule.id });
    await consent(t, active.consent_url, 'approve');
    const revoked = await api.post(`/payment-mandates/${active.id}/revoke`, {
      reason: 'Customer asked to stop',
    });
    assert.equal(revoked.body.data.revocation_reason, 'Customer asked to stop');
    const ledger = (await api.get(`/tracks/${plan.id}/ledger?type=mandate.revoked`)).body.data.items;
    assert.equal(ledger.length, 1);
    assert.equal(ledger[0].amount, 0);
    const events = (await api.get('/events?type=mandate.revoked')).body.data.items;
    assert.equal(events.length, 2);
    assert.deepEqual(events[0].data.previous_attributes, { status: 'active' });

    const twice = await api.post(`/payment-mandates/${active.id}/revoke`, {});
    assert.equal(twice.status, 409);
    assert.deepEqual(twice.body.error.details, { status: 'revoked', action: 'revoke' });
    const declined = await newMandate(api, { payer_id: customer.id });
    await consent(t, declined.consent_url, 'decline');
    const failed = await api.post(`/payment-mandates/${declined.id}/revoke`, {});
    assert.equal(failed.status, 409);
    assert.deepEqual(failed.body.error.details, { status: 'failed', action: 'revoke' });
    // A revoked mandate's consent link is dead.
    assert.equal((await openPage(t, pathOf(pending.consent_url))).statusCode, 410);
    // Payments go on as before.
    await newPayment(api, plan.id, { amount: 1_000 });
  });

  test('ten revokes at once: one 200, nine 409', async () => {
    const { api } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const mandate = await newMandate(api, { payer_id: customer.id });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api.post(`/payment-mandates/${mandate.id}/revoke`, {})),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
  });
});

describe('lists and scopes', () => {
  test('filter by status; mandates:read reads, only mandates:write writes; other workspaces and modes see nothing', async () => {
    const { api, live, workspaceId } = await newWorkspace(t);
    const customer = await newCustomer(api);
    const a = await newMandate(api, { payer_id: customer.id });
    const b = await newMandate(api, { payer_id: customer.id });
    await api.post(`/payment-mandates/${a.id}/revoke`, {});
    const ids = async (query: string) =>
      (await api.get(`/payment-mandates?${query}`)).body.data.items.map((m: { id: string }) => m.id);
    assert.deepEqual(await ids(''), [b.id, a.id]);
    assert.deepEqual(await ids('status=revoked'), [a.id]);
    assert.deepEqual(await ids('status=pending'), [b.id]);
    assert.equal((await api.get('/payment-mandates?status=gone')).status, 422);

    const reader = await newKey(t, workspaceId, { scopes: ['mandates:read'] });
    assert.equal((await reader.api.get(`/payment-mandates/${b.id}`)).status, 200);
    const refused = await reader.api.post(`/payment-mandates/${b.id}/revoke`, {});
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.details.required_scope, 'mandates:write');
    assert.equal((await live.get(`/payment-mandates/${b.id}`)).status, 404);
    const other = await newWorkspace(t);
    assert.equal((await other.api.get(`/payment-mandates/${b.id}`)).status, 404);
    assert.equal((await other.api.post(`/payment-mandates/${b.id}/revoke`, {})).status, 404);
  });
});
