import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { formatMoney, toMajorUnits } from '../../src/lib/money.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { clockAt } from '../helpers/clock-at.js';
import { consoleGet, consolePerson } from '../helpers/console.js';
import { newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

// The console's overview: per currency, what came in today, this week and this month, what is outstanding and
// overdue (aged), what falls due next, the collection rate and DSO, with the same figures as the reports for
// the same periods; the charts' tables beside them.

// Wednesday 14 June 2028, 13:00 in Lagos (UTC+1): today began at 23:00 UTC on the 13th, the week on Monday the
// 12th (23:00 UTC on the 11th), the month at 23:00 UTC on 31 May.
const NOW = '2028-06-14T12:00:00.000Z';
const FROM = {
  today: '2028-06-13T23:00:00.000Z',
  week: '2028-06-11T23:00:00.000Z',
  month: '2028-05-31T23:00:00.000Z',
  chart: '2028-03-16T23:00:00.000Z', // 17 March: 90 days, today included
};

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const at = clockAt(() => t, NOW);

async function report(api: Client, path: string) {
  const res = await api.get(path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

const figuresOf = (data: { currencies: Record<string, any>[] }, currency: string) =>
  data.currencies.find((c) => c.currency === currency);

/** The value shown of a figure (`ngn-collected-today`...). */
function shown(html: string, id: string): string {
  const match = new RegExp(
    `<div class="figure" id="${id}"><dt[^>]*>.*?</dt><dd class="value">(.*?)</dd>`,
  ).exec(html);
  assert.ok(match, `figure ${id}`);
  return match[1] as string;
}

/** The rows of a chart's table: each row's chart label and amount (major units, as the chart reads them). */
function tableRows(html: string, id: string): { label: string; value: string }[] {
  const table = new RegExp(`<table id="${id}"[^>]*>([\\s\\S]*?)</table>`).exec(html);
  assert.ok(table, `table ${id}`);
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table[1] as string)?.[1] ?? '';
  return [...body.matchAll(/<tr data-label="([^"]*)">.*?data-value="([^"]*)"/g)].map((m) => ({
    label: m[1] as string,
    value: m[2] as string,
  }));
}

const rate = (value: number | null) =>
  value === null ? /visually-hidden">none</ : new RegExp(`^${Number((value * 100).toFixed(2))}%$`);
const dso = (value: number | null) =>
  value === null ? /visually-hidden">none</ : `${value.toFixed(1)} days`;

/** The figures of a currency on the page equal the summary report's for today, this week and this month. */
async function assertFiguresOfReports(html: string, api: Client, currency: string) {
  const key = currency.toLowerCase();
  const [today, week, month] = await Promise.all(
    [FROM.today, FROM.week, FROM.month].map((from) => report(api, `/reports/summary?from=${from}`)),
  );
  const m = figuresOf(month, currency);
  assert.ok(m, `${currency} in the summary`);
  const money = (minor: number) => formatMoney(minor, currency);
  assert.equal(shown(html, `${key}-collected-today`), money(figuresOf(today, currency)?.collected ?? 0));
  assert.equal(shown(html, `${key}-collected-week`), money(figuresOf(week, currency)?.collected ?? 0));
  assert.equal(shown(html, `${key}-collected-month`), money(m.collected));
  assert.equal(shown(html, `${key}-outstanding`), money(m.outstanding));
  assert.equal(shown(html, `${key}-overdue`), money(m.overdue));
  assert.equal(shown(html, `${key}-expected`), money(m.expectedNext30Days));
  const shownRate = shown(html, `${key}-collection-rate`);
  const rateWanted = rate(m.collectionRate);
  assert.match(shownRate, rateWanted);
  const shownDso = shown(html, `${key}-dso`);
  const dsoWanted = dso(m.dso);
  if (typeof dsoWanted === 'string') assert.equal(shownDso, dsoWanted);
  else assert.match(shownDso, dsoWanted);
  return { today: figuresOf(today, currency), week: figuresOf(week, currency), month: m };
}

/**
 * An NGN plan paid last month, earlier this month, on Monday just after midnight in Lagos (still Sunday in UTC),
 * today just after midnight in Lagos (still yesterday in UTC) and today at 11:00; three plans overdue by 13, 44
 * and 105 days; a weekly schedule of 10,000 from today, its first instalment partly paid; a USD plan paid today.
 */
async function book(api: Client) {
  const plan = await at('2028-04-01T12:00:00.000Z', () =>
    newTrack(api, { amount: 1_000_000, title: 'Shop fit-out' }),
  );
  const payments: [string, number][] = [
    ['2028-05-20T12:00:00.000Z', 13_000],
    ['2028-06-03T12:00:00.000Z', 11_000],
    ['2028-06-11T23:30:00.000Z', 7_000],
    ['2028-06-13T23:30:00.000Z', 2_000],
    ['2028-06-14T10:00:00.000Z', 5_000],
  ];
  for (const [paidAt, amount] of payments)
    await at(paidAt, () => newPayment(api, plan.id, { amount, paidAt, method: 'bank_transfer' }));
  for (const [dueDate, amount] of [
    ['2028-06-01', 9_000],
    ['2028-05-01', 40_000],
    ['2028-03-01', 3_000],
  ] as const)
    await at('2028-01-01T12:00:00.000Z', () => newTrack(api, { amount, dueDate, title: `Due ${dueDate}` }));

  const weekly = await newTrack(api, { amount: 90_000, title: 'Generator' });
  const schedule = await api.post('/collection-schedules', {
    target_type: 'payment_plan',
    target_id: weekly.id,
    frequency: 'weekly',
    fixed_amount: 10_000,
    start_date: '2028-06-14T09:00:00Z',
    end_date: '2028-08-09T09:00:00Z',
  });
  assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
  await newPayment(api, weekly.id, { amount: 4_000, method: 'cash' });

  const dollars = await at('2028-06-01T12:00:00.000Z', () =>
    newTrack(api, { amount: 50_000, currency: 'USD', title: 'Laptop' }),
  );
  await newPayment(api, dollars.id, { amount: 2_500, method: 'card' });
}

/** Open obligations due from today (14 June) for 8 weeks, summed by week through `GET /obligations`. */
async function openByWeek(api: Client, currency: string): Promise<number[]> {
  const weeks = Array.from({ length: 8 }, () => 0);
  let cursor = '';
  do {
    const page = await report(api, `/obligations?due_from=2028-06-14&due_to=2028-08-08&limit=7${cursor}`);
    for (const o of page.items) {
      if (o.currency !== currency || !['pending', 'partially_paid'].includes(o.status)) continue;
      const week = Math.floor((Date.parse(o.due_date) - Date.parse('2028-06-14')) / (7 * 86_400_000));
      weeks[week] = (weeks[week] as number) + o.amount_due;
    }
    cursor = page.next_cursor ? `&cursor=${page.next_cursor}` : '';
  } while (cursor);
  return weeks;
}

describe('GET /console (the overview)', () => {
  test("the figures are the summary report's for today, this week and this month, in the workspace's zone", async () => {
    const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    await book(ws.api);
    const owner = await consolePerson(t, 'owner', ws);
    const page = await consoleGet(t, owner, '/console');
    assert.equal(page.statusCode, 200, page.body);
    const html = page.body;
    assert.match(html, new RegExp(`Signed in as ${owner.email.replace('.', '\\.')} \\(owner\\)`));

    const naira = await assertFiguresOfReports(html, ws.api, 'NGN');
    // Not all nothing: today 2,000 (00:30 in Lagos) + 5,000 + 4,000; Monday's 7,000; 11,000 earlier in June.
    assert.equal(naira.today?.collected, 11_000);
    assert.equal(naira.week?.collected, 18_000);
    assert.equal(naira.month.collected, 29_000);
    assert.equal(naira.month.overdue, 52_000);
    assert.equal(
      naira.month.expectedNext30Days,
      46_000,
      '14, 21 and 28 June, 5 and 12 July, less 4,000 paid',
    );
    assert.equal(shown(html, 'ngn-collected-today'), '₦110.00');

    const dollars = await assertFiguresOfReports(html, ws.api, 'USD');
    assert.equal(dollars.today?.collected, 2_500);
    assert.ok(
      html.indexOf('id="ngn-title"') < html.indexOf('id="usd-title"'),
      "the workspace's currency first",
    );
  });

  test("the ageing table is the overdue report's buckets; the days are the collections report's", async () => {
    const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    await book(ws.api);
    const owner = await consolePerson(t, 'owner', ws);
    const html = (await consoleGet(t, owner, '/console')).body;

    const overdue = figuresOf(await report(ws.api, '/reports/overdue'), 'NGN');
    assert.deepEqual(overdue?.buckets, { '1-30': 9_000, '31-60': 40_000, '61-90': 0, '91+': 3_000 });
    assert.deepEqual(
      tableRows(html, 'ngn-ageing'),
      [
        ['1–30 days', '1-30'],
        ['31–60 days', '31-60'],
        ['61–90 days', '61-90'],
        ['91 days or more', '91+'],
      ].map(([label, bucket]) => ({ label, value: toMajorUnits(overdue?.buckets[bucket as string], 'NGN') })),
    );

    const collections = figuresOf(
      await report(ws.api, `/reports/collections?from=${FROM.chart}&groupBy=day`),
      'NGN',
    );
    const byDay = new Map(
      collections?.periods.map((p: { period: string; total: number }) => [p.period, p.total]),
    );
    const days = tableRows(html, 'ngn-by-day');
    assert.equal(days.length, 90);
    const dates = Array.from({ length: 90 }, (_, n) =>
      new Date(Date.parse('2028-03-17') + n * 86_400_000).toISOString().slice(0, 10),
    );
    assert.deepEqual(
      days.map((d) => d.value),
      dates.map((date) => toMajorUnits((byDay.get(date) as number | undefined) ?? 0, 'NGN')),
    );
    assert.deepEqual(
      [days[0]?.label, days[89]?.label, days[88]?.value, days[89]?.value],
      ['17 Mar', '14 Jun', '0.00', '110.00'],
    );
    assert.equal(days.find((d) => d.label === '12 Jun')?.value, '70.00', 'Monday in Lagos, Sunday in UTC');
  });

  test('the weeks ahead are what open obligations still ask, read through GET /obligations', async () => {
    const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    await book(ws.api);
    const owner = await consolePerson(t, 'owner', ws);
    const html = (await consoleGet(t, owner, '/console')).body;
    const weeks = tableRows(html, 'ngn-by-week');
    const wanted = await openByWeek(ws.api, 'NGN');
    assert.deepEqual(wanted, [6_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
    assert.deepEqual(
      weeks.map((w) => w.value),
      wanted.map((amount) => toMajorUnits(amount, 'NGN')),
    );
    assert.deepEqual(
      weeks.map((w) => w.label),
      ['14 Jun', '21 Jun', '28 Jun', '5 Jul', '12 Jul', '19 Jul', '26 Jul', '2 Aug'],
    );
    assert.match(html, /14 Jun 2028 – 20 Jun 2028/);
    // Nothing falls due in dollars: a sentence says so, instead of an empty chart and a table of zeros.
    assert.doesNotMatch(html, /id="usd-by-week"/);
    assert.match(html, /No open instalment in USD falls due in the next 8 weeks\./);
    assert.match(html, /Nothing is overdue in USD\./);
  });

  test('a viewer and a collector see the overview, with the same figures', async () => {
    const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    await book(ws.api);
    for (const role of ['viewer', 'collector'] as const) {
      const person = await consolePerson(t, role, ws);
      const page = await consoleGet(t, person, '/console');
      assert.equal(page.statusCode, 200, `${role}: ${page.body}`);
      assert.match(page.body, new RegExp(`\\(${role}\\)`));
      assert.doesNotMatch(page.body, /class="problem"/, role);
      await assertFiguresOfReports(page.body, ws.api, 'NGN');
      assert.equal(tableRows(page.body, 'ngn-by-week')[1]?.value, '100.00', role);
    }
  });

  test('a workspace with two currencies shows a block for each, never adding them together', async () => {
    const ws = await newWorkspace(t, { timezone: 'Africa/Lagos', currency: 'USD' });
    const ada = await at('2028-06-01T12:00:00.000Z', () => newTrack(ws.api, { amount: 80_000 }));
    const obi = await at('2028-06-01T12:00:00.000Z', () =>
      newTrack(ws.api, { amount: 300_000, currency: 'NGN' }),
    );
    await newPayment(ws.api, ada.id, { amount: 1_500 });
    await newPayment(ws.api, obi.id, { amount: 25_000 });
    const viewer = await consolePerson(t, 'viewer', ws);
    const html = (await consoleGet(t, viewer, '/console')).body;
    const sections = [...html.matchAll(/<h2 id="([a-z]{3})-title">/g)].map((m) => m[1]);
    assert.deepEqual(sections, ['usd', 'ngn'], "the workspace's own currency first");
    await assertFiguresOfReports(html, ws.api, 'USD');
    await assertFiguresOfReports(html, ws.api, 'NGN');
    assert.equal(shown(html, 'usd-collected-today'), '$15.00');
    assert.equal(shown(html, 'ngn-collected-today'), '₦250.00');
  });

  test('a new workspace: its currency with nothing yet, no problem shown', async () => {
    const viewer = await consolePerson(t, 'viewer');
    const html = (await consoleGet(t, viewer, '/console')).body;
    assert.deepEqual(
      [...html.matchAll(/<h2 id="([a-z]{3})-title">/g)].map((m) => m[1]),
      ['ngn'],
    );
    assert.equal(shown(html, 'ngn-collected-month'), '₦0.00');
    assert.match(shown(html, 'ngn-collection-rate'), /none/);
    assert.match(html, /No payments in NGN in the last 90 days\./);
    assert.doesNotMatch(html, /data-chart=/);
    assert.doesNotMatch(html, /class="problem"/);
  });

  test('the test clock moves the overview: tomorrow, today is another day', async () => {
    const ws = await newWorkspace(t, { timezone: 'Africa/Lagos' });
    const plan = await newTrack(ws.api, { amount: 50_000 });
    await newPayment(ws.api, plan.id, { amount: 1_000 });
    const owner = await consolePerson(t, 'owner', ws);
    assert.equal(shown((await consoleGet(t, owner, '/console')).body, 'ngn-collected-today'), '₦10.00');
    assert.equal((await ws.api.post('/account/test-clock/advance', { days: 1 })).status, 200);
    const html = (await consoleGet(t, owner, '/console')).body;
    assert.equal(shown(html, 'ngn-collected-today'), '₦0.00');
    assert.equal(shown(html, 'ngn-collected-week'), '₦10.00');
    assert.match(html, /15 Jun 2028/);
  });

  test('charts come from this server: the scripts, cached for a year by their versioned address; no inline script or style', async () => {
    const viewer = await consolePerson(t, 'viewer');
    const page = await consoleGet(t, viewer, '/console');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.doesNotMatch(page.body, /\sstyle=/);
    assert.doesNotMatch(page.body, /<script(?![^>]*\ssrc="\/console\/assets\/)/);
    const scripts = [...page.body.matchAll(/<script src="([^"]+)" defer><\/script>/g)].map(
      (m) => m[1] as string,
    );
    assert.equal(scripts.length, 2);
    assert.match(scripts[0] as string, /^\/console\/assets\/chart\.umd\.min\.js\?v=[0-9a-f]{16}$/);
    assert.match(scripts[1] as string, /^\/console\/assets\/overview-charts\.js\?v=[0-9a-f]{16}$/);
    for (const src of scripts) {
      // Served without a session, like the sign-in page.
      const res = await t.app.inject({ method: 'GET', url: src });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
    const library = await t.app.inject({ method: 'GET', url: scripts[0] as string });
    assert.match(library.body, /Chart\.js v4\./);
    const head = await t.app.inject({ method: 'HEAD', url: scripts[1] as string });
    assert.equal(head.statusCode, 200);
    assert.equal((await consoleGet(t, viewer, '/console/assets/nothing.js')).statusCode, 404);
  });

  test('signed out, the overview sends to sign-in', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/console/sign-in');
  });
});
