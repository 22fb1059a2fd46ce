import assert from 'node:assert/strict';

/** A keyed call to the server the README started, for what a block's output alone does not show. */
export type Api = (path: string, init?: RequestInit) => Promise<{ status: number; body: Json }>;

/** What the prose around each labelled `sh` block of the README promises, checked on the block's output. */
export type Expectation = (stdout: string, api: Api) => void | Promise<void>;

/** JSON answers, checked field by field. */
type Json = any;

/** The JSON documents a block printed, one per line (the README ends each curl with `echo`). */
export function answers(stdout: string): Json[] {
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

function ok(answer: Json): Json {
  assert.equal(answer?.success, true, `expected a success envelope, got ${JSON.stringify(answer)}`);
  return answer.data;
}

const byTitle = async (api: Api, title: string) => {
  const plans = (await api('/tracks?limit=100')).body.data.items as Json[];
  const plan = plans.find((p) => p.title === title);
  assert.ok(plan, `no plan titled ${title}`);
  return plan;
};

/**
 * The owner's one-time link the first start prints: it shows the set-password page, a password sets it and signs
 * the owner in, and the console's overview shows the workspace; `/` leads to the console.
 */
async function signsInThroughTheLink(stdout: string): Promise<void> {
  const link = /(http:\/\/\S+\/console\/set-password\/pw_[\w-]{43})\n/.exec(stdout)?.[1];
  assert.ok(link, 'the first start prints the console link of the owner');
  assert.match(stdout, /sets the password of its owner, owner@example\.com/);
  const origin = new URL(link).origin;
  const root = await fetch(`${origin}/`, { redirect: 'manual' });
  assert.equal(root.headers.get('location'), '/console', '/ leads to the console');
  const shown = await fetch(link);
  assert.equal(shown.status, 200);
  assert.match(await shown.text(), /Set your password/);
  const set = await fetch(link, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: 'password=readme+owner+password',
  });
  assert.equal(set.status, 303);
  const cookie = (set.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  assert.match(cookie, /^paytrack_session=ses_/);
  const overview = await fetch(`${origin}/console`, { headers: { cookie } });
  assert.equal(overview.status, 200);
  const html = await overview.text();
  assert.match(html, /Mama Put Stores/);
  assert.match(html, /Overview/);
  assert.match(html, /Test mode/);
}

export const expectations: Record<string, Expectation> = {
  async start(stdout, api) {
    assert.match(stdout, /created the workspace 'Mama Put Stores'/);
    const account = ok((await api('/account')).body);
    assert.equal(account.name, 'Mama Put Stores');
    assert.equal(account.currency, 'NGN');
    assert.equal(account.timeZone, 'Africa/Lagos');
    assert.equal(account.country, 'NG');
    await signsInThroughTheLink(stdout);
  },

  async printed(stdout, api) {
    const [payment, plan] = answers(stdout).map(ok);
    assert.equal(payment.amount, 50000);
    assert.equal(plan.balance, 100000, 'the plan shows "balance":100000');
    assert.equal(plan.currency, 'NGN');
    const customer = ok((await api(`/customers/${plan.customerId}`)).body);
    assert.equal(customer.phone, '+2348031234567', 'the local number is kept in E.164');
  },

  settings(stdout) {
    const [account] = answers(stdout).map(ok);
    assert.equal(account.supportEmail, 'help@mamaput.example');
    assert.equal(account.brandColor, '#0a7d4f');
    assert.equal(account.country, 'NG');
    assert.equal(stdout.trim().split('\n').at(-1), '+2348031234567');
  },

  phones(stdout) {
    assert.deepEqual(stdout.trim().split('\n'), ['+2348031234567', 'Ada Obi, Ada Obi Stores', '2']);
  },

  async owes(stdout, api) {
    const [customer, overdue, next30, ofCustomer, overduePlans, reversed, report] = answers(stdout).map(ok);
    const ngn = customer.balances.find((b: Json) => b.currency === 'NGN');
    assert.ok(ngn.outstanding > 0, 'the customer owes naira');
    assert.ok(ngn.overdue > 0, 'part of it is overdue (the Television plan, due before the clock was moved)');
    assert.ok(overdue.items.length > 0);
    for (const o of overdue.items) assert.equal(o.status, 'overdue');
    for (const o of next30.items) assert.ok(o.due_date >= next30.items[0].due_date);
    assert.ok(ofCustomer.items.every((o: Json) => o.customer_id === customer.id && 'amount_due' in o));
    assert.ok(overduePlans.items.length > 0);
    assert.deepEqual(reversed.items, []);
    const [account] = report.accounts.items;
    assert.ok(account, `an overdue account in ${JSON.stringify(report)}`);
    assert.equal(account.phone, '+2348031234567');
    assert.ok(account.scheduleId === null || /^sch_/.test(account.scheduleId));
    const account2 = ok((await api('/account')).body);
    assert.equal(account2.currency, 'NGN');
  },

  async payer(stdout, api) {
    const lines = stdout.split('\n').map((line) => line.trim());
    const page = lines.find((line) => /^http\S+\/c\/cp_[\w-]{43}$/.test(line));
    const pay = lines.find((line) => /^http\S+\/pay\/\S+$/.test(line));
    const receipt = lines.find((line) => /^http\S+\/r\/[0-9A-Z]{12}$/.test(line));
    assert.ok(page && pay && receipt, `the block prints the three links: ${stdout}`);
    const [sent, statement] = answers(stdout).map(ok);
    assert.equal(sent.url, null, 'a link sent by a reminder is in no answer');
    assert.match(sent.reminderId, /^rem_/);
    assert.ok(lines.includes('%PDF-'), 'the receipt is a PDF');
    const shown = await fetch(page);
    assert.equal(shown.status, 200);
    const html = await shown.text();
    assert.match(html, /Hello, Ada Obi/);
    assert.match(html, /Fridge, 3 instalments/);
    assert.equal((await fetch(pay)).status, 200);
    const checked = await fetch(receipt);
    assert.equal(checked.status, 200);
    assert.match(await checked.text(), /Valid: Mama Put Stores recorded this payment\./);
    const ngn = statement.currencies.find((c: Json) => c.currency === 'NGN');
    const plans = (await api(`/tracks?customerId=${statement.customer.id}&limit=100`)).body.data
      .items as Json[];
    const owed = plans.filter((p) => p.currency === 'NGN').reduce((sum, p) => sum + p.balance, 0);
    assert.equal(ngn.closingBalance, owed, "the statement closes on the plans' balances");
  },

  test(stdout) {
    assert.match(stdout, /^# fail 0$/m);
    assert.match(stdout, /^# pass [1-9]\d*$/m);
  },

  schedules(stdout) {
    const [before, payment, after] = answers(stdout).map(ok);
    assert.deepEqual(
      before.items.map((o: Json) => o.amount),
      [30000, 30000, 30000],
    );
    assert.deepEqual(
      payment.allocations.map((a: Json) => a.amount),
      [30000, 15000],
    );
    const statuses = after.items.map((o: Json) => [o.status, o.amount_paid]);
    assert.deepEqual(statuses.slice().sort(), [
      ['paid', 30000],
      ['partially_paid', 15000],
      ['pending', 0],
    ]);
  },

  mandate(stdout) {
    const mandate = ok(answers(stdout)[0]);
    assert.equal(mandate.status, 'pending');
    assert.match(mandate.consent_url, /\/consent\/ct_/);
  },

  async 'auto-debit'(stdout, api) {
    assert.match(
      stdout,
      /<p class="agreement">Mama Put Stores may collect ₦3,000\.00 in all from Ada Obi for Laptop, 3 monthly debits by automatic debit through Gateway A, in 3 payments of ₦1,000\.00, every month from [A-Z][a-z]+day \d{1,2} [A-Z][a-z]+ \d{4} to [A-Z][a-z]+day \d{1,2} [A-Z][a-z]+ \d{4}\./,
    );
    assert.match(stdout, /<h1>You approved automatic payments to Mama Put Stores<\/h1>/);
    const [advanced, attempts, plan] = answers(stdout).map(ok);
    assert.ok(advanced.now, 'the advance answers the new time');
    assert.equal(attempts.items.length, 1);
    const [attempt] = attempts.items;
    assert.equal(attempt.status, 'succeeded', 'the attempt is succeeded right after the advance');
    assert.equal(attempt.amount, 100000);
    const payment = ok((await api(`/payments/${attempt.payment_id}`)).body);
    assert.equal(payment.source, 'provider');
    assert.equal(payment.method, 'direct_debit');
    assert.equal(plan.balance, 200000);
  },

  async 'forty-days'(stdout, api) {
    assert.equal(stdout.trim().split('\n').at(-1), '30000', 'the plan has 30,000 left');
    const plan = await byTitle(api, 'Freezer, 3 monthly debits');
    const schedules = ok((await api(`/collection-schedules?target_id=${plan.id}`)).body).items;
    assert.equal(schedules.length, 1);
    const [schedule] = schedules;
    const zone = ok((await api('/account')).body).timeZone;
    const attempts = ok((await api(`/collection-attempts?schedule_id=${schedule.id}`)).body).items;
    const obligations = ok((await api(`/collection-schedules/${schedule.id}/obligations`)).body).items;
    assert.deepEqual(
      attempts.map((a: Json) => a.status),
      ['succeeded', 'succeeded'],
    );
    const byId = new Map(obligations.map((o: Json) => [o.id, o]));
    for (const attempt of attempts) {
      const due = (byId.get(attempt.obligation_id) as Json).due_date;
      const localStart = new Intl.DateTimeFormat('sv-SE', {
        timeZone: zone,
        dateStyle: 'short',
        timeStyle: 'medium',
      }).format(new Date(attempt.attempted_at));
      assert.equal(localStart, `${due} 00:00:00`, 'each debit is attempted at the start of its own due date');
    }
    assert.deepEqual(obligations.map((o: Json) => o.status).sort(), ['paid', 'paid', 'pending']);
    const overdue = ok((await api('/events?type=obligation.overdue&limit=100')).body).items;
    assert.ok(
      overdue.every((e: Json) => e.data.object.schedule_id !== schedule.id),
      'no obligation of the schedule was ever overdue',
    );
    assert.match(stdout, /'attempts\.run': [1-9]/);
  },

  async collections(stdout, api) {
    const [promise, waived, quote, payment] = answers(stdout).map(ok);
    assert.equal(promise.status, 'open');
    assert.equal(promise.source, 'business');
    assert.equal(waived.kind, 'fee');
    assert.equal(waived.status, 'waived');
    assert.equal(waived.amount, 2500);
    assert.equal(quote.discount, 20000, 'ten per cent of the two instalments not yet due');
    assert.equal(quote.amount, 280000);
    assert.equal(payment.amount, 280000);
    assert.deepEqual(stdout.trim().split('\n').slice(-3), ['20000', '30000', 'rejected']);
    const plan = await byTitle(api, 'Motorbike, 3 monthly instalments');
    assert.equal(plan.status, 'completed');
    assert.equal(plan.balance, 0);
    const ledger = ok((await api(`/tracks/${plan.id}/ledger?limit=100`)).body).items as Json[];
    const moved = (type: string) => ledger.filter((e) => e.type === type).map((e) => e.amount);
    assert.deepEqual(moved('fee.charged'), [2500]);
    assert.deepEqual(moved('fee.waived'), [-2500]);
    assert.deepEqual(moved('plan.settlement_discount'), [-20000]);
    // Kept once the payment's events are relayed, which the running server does within moments.
    let status = '';
    for (let i = 0; i < 50 && status !== 'kept'; i++) {
      status = ok((await api(`/promises/${promise.id}`)).body).status;
      if (status !== 'kept') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(status, 'kept', 'the payment keeps the promise');
    const summary = ok((await api('/reports/summary')).body).currencies.find(
      (c: Json) => c.currency === 'NGN',
    );
    assert.ok(summary.feesCharged >= 2500 && summary.feesWaived >= 2500 && summary.writtenOff >= 20000);
  },

  unapplied(stdout) {
    const [notification, before, applied, after] = answers(stdout);
    assert.equal(notification.outcome ?? notification.data?.outcome, 'recorded');
    const credit = (c: Json) => c.balances.find((b: Json) => b.currency === 'NGN')?.credit;
    assert.equal(credit(ok(before)), 20000);
    assert.equal(ok(applied).amount, 15000);
    assert.equal(credit(ok(after)), 5000);
  },

  reminders(stdout) {
    const [sent, logs] = answers(stdout).map(ok);
    assert.equal(sent.queued, 1);
    const [log] = logs.items;
    assert.equal(log?.status, 'simulated', 'the reminder was delivered, simulated in test mode');
    assert.equal(log.channel, 'sms');
    assert.equal(log.to, '+2348031234567');
  },

  async reports(stdout, api) {
    const [summary, collections, overdue, byDays, expected, exported] = answers(stdout).map(ok);
    assert.ok(summary.currencies.some((c: Json) => c.currency === 'NGN'));
    assert.ok(collections.currencies.some((c: Json) => c.currency === 'NGN'));
    assert.ok(overdue.currencies.some((c: Json) => c.currency === 'NGN'));
    const days = byDays.accounts.items.map((a: Json) => a.daysOverdue);
    assert.deepEqual(
      days,
      [...days].sort((a: number, b: number) => b - a),
      'the most days overdue first',
    );
    assert.equal(expected.groupBy, 'week');
    const naira = expected.currencies.find((c: Json) => c.currency === 'NGN');
    const thirty = summary.currencies.find((c: Json) => c.currency === 'NGN')?.expectedNext30Days ?? 0;
    assert.equal(naira?.total ?? 0, thirty, "the 30 days ahead add up to the summary's expectedNext30Days");
    assert.ok(['queued', 'running', 'done'].includes(exported.status));
    await api('/account');
  },

  async 'export-json'(stdout, api) {
    const lines = stdout.trim().split('\n');
    assert.ok(
      lines.includes('Ada Obi, Fridge, 3 instalments: 500.00 NGN'),
      "the quick start's payment is a row",
    );
    const { items } = ok((await api('/payments?limit=100')).body);
    assert.equal(lines.length, items.length, 'one line per payment');
  },

  'paystack-keys'(stdout) {
    assert.ok(!stdout.includes('sk_test_4eC39HqLyjWDarjtT1zdp7dc0123456789ab'), 'the key is never printed');
    assert.match(stdout, /key …89ab/);
    assert.match(
      stdout,
      /Register this webhook URL with paystack: http:\/\/\S+\/api\/v1\/provider-webhooks\/\S+/,
    );
    assert.match(
      stdout,
      /paystack\s+test\s+checkout,virtual_account,debit\s+no\s+…89ab\s+http\S+\/provider-webhooks\//,
    );
  },

  async 'paystack-simulated'(stdout) {
    assert.match(stdout, /http:\/\/\S+\/simulator\/authorize\/sim_auth_man_[0-9A-Z]{26}/);
    assert.match(stdout, /<h1>You approved automatic payments to Mama Put Stores<\/h1>/);
    const mandate = ok(answers(stdout).at(-1));
    assert.equal(mandate.status, 'active');
    assert.equal(mandate.provider, 'paystack');
    assert.deepEqual(mandate.payment_method, {
      type: 'direct_debit',
      bank: 'Test Bank (simulated)',
      last4: '0000',
    });
  },

  'stripe-keys'(stdout) {
    assert.ok(!/sk_test_51Nb2example|whsec_example/.test(stdout), 'neither secret is printed');
    const [setting] = answers(stdout);
    assert.equal(setting.provider, 'stripe');
    assert.equal(setting.keyLast4, 'wxyz');
    assert.equal(setting.webhookSecretSet, true);
    assert.match(setting.webhookUrl, /\/api\/v1\/provider-webhooks\/\S+$/);
    assert.deepEqual(setting.rails_moved_from, ['paystack']);
    assert.match(stdout, /'paystack', 'virtual_account', '89ab'/);
    assert.match(stdout, /'stripe', 'checkout,debit', 'wxyz'/);
  },

  'messages-keys'(stdout) {
    assert.ok(!stdout.includes('f1e2d3c4b5a6978877665544332211aa'), 'the auth token is never printed');
    assert.match(stdout, /Register this callback URL with twilio/);
    assert.match(stdout, /http:\/\/\S+\/api\/v1\/message-callbacks\/mst_[0-9A-Z]{26}\?token=\S+/);
    assert.match(stdout, /'twilio', 'AC0123456789abcdef0123456789abcdef …11aa'/);
  },

  replies(stdout) {
    const [stop] = answers(stdout).map(ok);
    assert.equal(stop.action, 'opt_out');
    assert.equal(stop.text, 'STOP');
    assert.match(stdout, /\[ 'sms' \]/);
    assert.match(stdout, /\[ 'START', 'opt_in' \],\s*\[ 'STOP', 'opt_out' \]/);
  },

  'contact-policy'(stdout) {
    assert.match(stdout, /start: '20:00', end: '07:30'/);
    assert.match(stdout, /maxPerWeek: 2/);
    assert.match(stdout, /Africa\/Nairobi/);
    assert.match(stdout, /\{ start: '21:00', end: '08:00' \}\s*$/);
  },

  cli(stdout) {
    const lines = stdout.trim().split('\n');
    const created = JSON.parse(lines.at(-1) ?? '{}');
    assert.match(created.id, /^key_/);
    assert.match(created.key, /^pt_live_[0-9A-Za-z]{32}$/);
  },
};

export { byTitle };
