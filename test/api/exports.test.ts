import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { up } from '../../src/db/migrations/0022_export_formats.js';
import { runSweepsNow } from '../../src/jobs/sweeps.js';
import { ManualClock } from '../../src/lib/clock.js';
import { signingSecret } from '../../src/modules/exports/exports.secret.js';
import { downloadUrl, linkExpiry } from '../../src/modules/exports/exports.signing.js';
import { LocalDiskStorage } from '../../src/modules/exports/exports.storage.js';
import { appendEntries } from '../../src/modules/ledger/ledger.service.js';
import { type ApiResponse, type Client, client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newKey, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';

const NOW = '2028-03-15T12:00:00.000Z';
const HOUR_MS = 3_600_000;
const FEBRUARY = { from: '2028-02-01T00:00:00Z', to: '2028-03-01T00:00:00Z' };

let t: TestApp;
/** Without a key: download links need none. */
let anonymous: Client;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
  anonymous = client(t, null);
});
after(() => t.close());

/** RFC 4180: quoted fields may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (c !== '\r') field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** The CSV as objects keyed by its header row. */
function csvRecords(text: string): { header: string[]; records: Record<string, string>[] } {
  const [header = [], ...rows] = parseCsv(text);
  return {
    header,
    records: rows.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i] ?? '']))),
  };
}

async function startExport(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/reports/export', body);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.data;
}

async function exportOf(api: Client, id: string) {
  const res = await api.get(`/reports/exports/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

/** Starts an export, runs the worker, and returns it as it ended. */
async function exported(api: Client, body: Record<string, unknown>) {
  const queued = await startExport(api, body);
  await t.worker.drain();
  return exportOf(api, queued.id);
}

/** The path and query of a download link, for inject. */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

function download(url: string): Promise<ApiResponse> {
  return anonymous.get(pathOf(url));
}

function withParam(url: string, name: string, value: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(name, value);
  return parsed.toString();
}

function assertRefused(res: ApiResponse, status: number, code: string, reason: string, message: RegExp) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, code);
  assert.equal(res.body.error.details?.reason, reason);
  assert.match(res.body.error.message, message);
}

/** A workspace with payments in and out of February, one of them reversed, and another workspace's in February. */
async function paymentsFixture() {
  const ws = await newWorkspace(t);
  const customer = await newCustomer(ws.api, { name: 'Adaeze Okafor' });
  const plan = await newTrack(ws.api, { customerId: customer.id, amount: 5_000_000 });
  const dollars = await newTrack(ws.api, {
    customerId: customer.id,
    amount: 900_000_000,
    currency: 'USD',
    title: 'Generator "Mikano" 20kVA',
  });
  const inFebruary = [
    await newPayment(ws.api, plan.id, {
      amount: 150_000,
      paidAt: '2028-02-01T00:00:00Z',
      reference: 'GTB, "transfer" 0091',
    }),
    await newPayment(ws.api, plan.id, { amount: 7, method: 'bank_transfer', paidAt: '2028-02-10T09:30:00Z' }),
    await newPayment(ws.api, dollars.id, { amount: 123_456_789, paidAt: '2028-02-28T23:59:59.999Z' }),
    await newPayment(ws.api, plan.id, { amount: 2_500, paidAt: '2028-02-14T12:00:00Z', reference: '=1+1' }),
  ];
  const reversed = await ws.api.post(`/payments/${inFebruary[1].id}/reverse`, { reason: 'Cheque returned' });
  assert.equal(reversed.status, 200, JSON.stringify(reversed.body));
  inFebruary[1] = reversed.body.data;
  await newPayment(ws.api, plan.id, { amount: 1_000, paidAt: '2028-01-31T23:59:59.999Z' });
  await newPayment(ws.api, plan.id, { amount: 1_000, paidAt: '2028-03-01T00:00:00Z' });

  const other = await newWorkspace(t);
  const otherPlan = await newTrack(other.api);
  await newPayment(other.api, otherPlan.id, { amount: 4_444, paidAt: '2028-02-10T09:30:00Z' });
  return { ws, inFebruary, titles: new Map([plan, dollars].map((p) => [p.id, p.title])), customer };
}

const PAYMENT_COLUMNS = [
  'id',
  'trackId',
  'planTitle',
  'customerId',
  'customerName',
  'amount',
  'amountDecimal',
  'currency',
  'method',
  'status',
  'paidAt',
  'reference',
  'source',
  'createdAt',
  'reversedAt',
];

/** The fixture's amounts in major units, as the export must write them. */
const DECIMALS: Record<number, string> = {
  150000: '1500.00',
  7: '0.07',
  123456789: '1234567.89',
  2500: '25.00',
  1000: '10.00',
};

/** A payment as an export row: the API's fields, the plan's title, the customer's name and the decimal amount. */
function paymentRow(p: Record<string, any>, titles: Map<string, string>) {
  const row: Record<string, unknown> = Object.fromEntries(PAYMENT_COLUMNS.map((c) => [c, p[c]]));
  row.planTitle = titles.get(p.trackId) ?? null;
  row.customerName = 'Adaeze Okafor';
  row.amountDecimal = DECIMALS[p.amount];
  return row;
}

describe('POST /reports/export', () => {
  test('payments as CSV: every payment of the workspace in [from, to), amounts exact, none of another workspace', async () => {
    const { ws, inFebruary, titles } = await paymentsFixture();
    const queued = await startExport(ws.api, { report: 'payments', format: 'csv', ...FEBRUARY });
    assert.match(queued.id, /^exp_/);
    assert.deepEqual(queued, {
      id: queued.id,
      report: 'payments',
      format: 'csv',
      from: '2028-02-01T00:00:00.000Z',
      to: '2028-03-01T00:00:00.000Z',
      status: 'queued',
      progress: { rows: 0, total: null },
      downloadUrl: null,
      expiresAt: null,
      error: null,
      createdAt: NOW,
      completedAt: null,
    });

    await t.worker.drain();
    const done = await exportOf(ws.api, queued.id);
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.deepEqual(done.progress, { rows: 4, total: 4 });
    assert.equal(done.completedAt, NOW);
    assert.equal(done.expiresAt, new Date(Date.parse(NOW) + HOUR_MS).toISOString());
    assert.equal(done.error, null);
    const url = new URL(done.downloadUrl);
    assert.equal(url.origin, t.ctx.config.publicUrl);
    assert.equal(url.pathname, `/api/v1/reports/exports/${queued.id}/download`);
    assert.equal(url.searchParams.get('expires'), String(Date.parse(done.expiresAt) / 1000));
    assert.match(url.searchParams.get('signature') ?? '', /^[0-9a-f]{64}$/);

    const file = await download(done.downloadUrl);
    assert.equal(file.status, 200, String(file.body));
    assert.equal(file.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(file.headers['content-disposition'], `attachment; filename="payments-${queued.id}.csv"`);
    const { header, records } = csvRecords(file.body);
    assert.deepEqual(header, PAYMENT_COLUMNS);
    const expected = [...inFebruary].sort((a, b) => (a.id < b.id ? -1 : 1));
    assert.deepEqual(
      records,
      expected.map((p) => ({
        id: p.id,
        trackId: p.trackId,
        planTitle: titles.get(p.trackId) ?? '',
        customerId: p.customerId,
        customerName: 'Adaeze Okafor',
        amount: String(p.amount),
        amountDecimal: DECIMALS[p.amount] ?? '',
        currency: p.currency,
        method: p.method,
        status: p.status,
        paidAt: p.paidAt,
        reference: p.reference === '=1+1' ? "'=1+1" : (p.reference ?? ''),
        source: p.source,
        createdAt: p.createdAt,
        reversedAt: p.reversedAt ?? '',
      })),
    );
    assert.deepEqual(
      records.map((r) => [r.amount, r.currency]),
      expected.map((p) => [String(p.amount), p.currency]),
    );
    assert.ok(records.some((r) => r.amount === '123456789' && r.currency === 'USD'));
    assert.ok(
      records.some((r) => r.amountDecimal === '1234567.89' && r.planTitle === 'Generator "Mikano" 20kVA'),
    );
    assert.ok(records.some((r) => r.amountDecimal === '0.07'));
    assert.ok(records.some((r) => r.status === 'reversed' && r.reversedAt !== ''));
  });

  test('payments as JSON: one array, the same rows, with names and decimal amounts', async () => {
    const { ws, inFebruary, titles } = await paymentsFixture();
    const done = await exported(ws.api, { report: 'payments', format: 'json', ...FEBRUARY });
    assert.equal(done.status, 'done');
    assert.equal(done.format, 'json');
    assert.deepEqual(done.progress, { rows: 4, total: 4 });
    const file = await t.app.inject({ method: 'GET', url: pathOf(done.downloadUrl) });
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(file.headers['content-disposition'], `attachment; filename="payments-${done.id}.json"`);
    const rows = JSON.parse(file.body);
    assert.ok(Array.isArray(rows));
    assert.deepEqual(
      rows,
      [...inFebruary].sort((a, b) => (a.id < b.id ? -1 : 1)).map((p) => paymentRow(p, titles)),
    );
    assert.deepEqual(Object.keys(rows[0] ?? {}), PAYMENT_COLUMNS);

    const none = await exported(ws.api, { report: 'payments', format: 'json', to: '2020-01-01T00:00:00Z' });
    const empty = await t.app.inject({ method: 'GET', url: pathOf(none.downloadUrl) });
    assert.deepEqual(JSON.parse(empty.body), []);
  });

  test('payments as JSON lines: one object per line, the same rows', async () => {
    const { ws, inFebruary, titles } = await paymentsFixture();
    const done = await exported(ws.api, { report: 'payments', format: 'jsonl', ...FEBRUARY });
    assert.equal(done.status, 'done');
    assert.equal(done.format, 'jsonl');
    assert.deepEqual(done.progress, { rows: 4, total: 4 });
    const file = await download(done.downloadUrl);
    assert.equal(file.status, 200);
    assert.equal(file.headers['content-type'], 'application/x-ndjson; charset=utf-8');
    assert.equal(file.headers['content-disposition'], `attachment; filename="payments-${done.id}.jsonl"`);
    const text = file.body as unknown as string;
    assert.equal(typeof text, 'string', 'the body is lines, not one JSON document');
    assert.ok(text.endsWith('\n'));
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines,
      [...inFebruary].sort((a, b) => (a.id < b.id ? -1 : 1)).map((p) => paymentRow(p, titles)),
    );
  });

  test('without from and to, everything; an empty range gives a CSV of its header alone', async () => {
    const { ws } = await paymentsFixture();
    const all = await exported(ws.api, { report: 'payments', format: 'csv' });
    assert.deepEqual(all.progress, { rows: 6, total: 6 });
    assert.equal(all.from, null);
    assert.equal(all.to, null);
    const none = await exported(ws.api, {
      report: 'payments',
      format: 'csv',
      from: '2020-01-01T00:00:00Z',
      to: '2020-01-01T00:00:00Z',
    });
    assert.equal(none.status, 'done');
    assert.deepEqual(none.progress, { rows: 0, total: 0 });
    const file = await download(none.downloadUrl);
    assert.equal(file.body, `${PAYMENT_COLUMNS.join(',')}\n`);
  });

  test('the ledger, streamed in batches of 1000 in id order: 2,345 entries, each once', async () => {
    const ws = await newWorkspace(t);
    const tenant = { workspaceId: ws.workspaceId, mode: 'test' as const, clock: t.clock };
    const entries = Array.from({ length: 2_345 }, (_, i) => ({
      type: 'plan.adjusted' as const,
      trackId: null,
      customerId: null,
      amount: i % 2 === 0 ? i + 1 : -(i + 1),
      balanceAfter: null,
      currency: 'NGN',
      occurredAt: new Date(Date.parse('2028-02-01T00:00:00Z') + i * 60_000).toISOString(),
    }));
    await t.ctx.db.transaction().execute((trx) => appendEntries(trx, tenant, entries));
    const done = await exported(ws.api, { report: 'ledger', format: 'csv', ...FEBRUARY });
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.deepEqual(done.progress, { rows: 2_345, total: 2_345 });
    const { header, records } = csvRecords((await download(done.downloadUrl)).body);
    assert.deepEqual(header, [
      'id',
      'type',
      'trackId',
      'planTitle',
      'customerId',
      'customerName',
      'amount',
      'amountDecimal',
      'balanceAfter',
      'balanceAfterDecimal',
      'currency',
      'occurredAt',
    ]);
    assert.equal(records.length, 2_345);
    for (const r of records) {
      // Small amounts: a float's toFixed is exact here, and an independent check of the integer arithmetic.
      assert.equal(r.amountDecimal, (Number(r.amount) / 100).toFixed(2), r.amount);
      assert.equal(r.planTitle, '');
      assert.equal(r.customerName, '');
      assert.equal(r.balanceAfterDecimal, '');
    }
    assert.ok(records.some((r) => r.amountDecimal?.startsWith('-')));

    const ids = records.map((r) => r.id);
    assert.deepEqual(ids, [...new Set(ids)].sort());
    assert.equal(
      records.reduce((sum, r) => sum + Number(r.amount), 0),
      entries.reduce((sum, e) => sum + e.amount, 0),
    );
    assert.deepEqual(records.map((r) => r.occurredAt).sort(), entries.map((e) => e.occurredAt).sort());

    // The same rows as one JSON array: valid JSON across the batches it was written in.
    const json = await exported(ws.api, { report: 'ledger', format: 'json', ...FEBRUARY });
    assert.deepEqual(json.progress, { rows: 2_345, total: 2_345 });
    const file = await t.app.inject({ method: 'GET', url: pathOf(json.downloadUrl) });
    const rows = JSON.parse(file.body);
    assert.equal(rows.length, 2_345);
    assert.deepEqual(
      rows.map((r: { id: string }) => r.id),
      ids,
    );
    assert.equal(rows[0].planTitle, null);
  });

  test('ledger as JSON lines, as GET /ledger shows it, with names and decimal amounts', async () => {
    const { ws, titles, customer } = await paymentsFixture();
    const done = await exported(ws.api, { report: 'ledger', format: 'jsonl' });
    const ledger = await ws.api.get('/ledger?limit=100');
    assert.equal(ledger.status, 200);
    const lines = (await download(done.downloadUrl)).body
      .trimEnd()
      .split('\n')
      .map((l: string) => JSON.parse(l));
    assert.ok(lines.length > 0);
    assert.deepEqual(done.progress, { rows: lines.length, total: lines.length });
    // NGN and USD amounts of this size: a float's toFixed(2) is exact, and independent of the export's arithmetic.
    const decimal = (minor: number | null) => (minor === null ? null : (minor / 100).toFixed(2));
    assert.deepEqual(
      lines,
      [...ledger.body.data.items].reverse().map(({ refs: _refs, ...entry }: Record<string, any>) => ({
        ...entry,
        planTitle: titles.get(entry.trackId) ?? null,
        customerName: entry.customerId === customer.id ? 'Adaeze Okafor' : null,
        amountDecimal: decimal(entry.amount),
        balanceAfterDecimal: decimal(entry.balanceAfter),
      })),
    );
    assert.ok(lines.some((l: Record<string, unknown>) => l.amountDecimal === '9000000.00'));
    assert.ok(lines.some((l: Record<string, any>) => l.amountDecimal.startsWith('-')));
  });

  test('amounts in major units follow the currency: none after the point for JPY, three for KWD', async () => {
    const ws = await newWorkspace(t);
    const customer = await newCustomer(ws.api, { name: 'Kenji Sato' });
    const yen = await newTrack(ws.api, {
      customerId: customer.id,
      amount: 90_000,
      currency: 'JPY',
      title: 'Bike',
    });
    const dinar = await newTrack(ws.api, {
      customerId: customer.id,
      amount: 90_000,
      currency: 'KWD',
      title: 'TV',
    });
    await newPayment(ws.api, yen.id, { amount: 1_500, paidAt: '2028-02-02T00:00:00Z', reference: '-2+3' });
    await newPayment(ws.api, dinar.id, { amount: 1_234, paidAt: '2028-02-03T00:00:00Z' });
    const done = await exported(ws.api, { report: 'payments', format: 'csv', ...FEBRUARY });
    const { records } = csvRecords((await download(done.downloadUrl)).body);
    assert.deepEqual(
      records.map((r) => [r.planTitle, r.customerName, r.amount, r.amountDecimal, r.currency]),
      [
        ['Bike', 'Kenji Sato', '1500', '1500', 'JPY'],
        ['TV', 'Kenji Sato', '1234', '1.234', 'KWD'],
      ],
    );
    // A negative decimal is a number to a spreadsheet and stays as it is; text that starts like a formula does not.
    assert.equal(records[0]?.reference, "'-2+3");
    const ledger = await exported(ws.api, { report: 'ledger', format: 'csv' });
    const entries = csvRecords((await download(ledger.downloadUrl)).body).records;
    const paid = entries.find((e) => e.type === 'payment.recorded' && e.currency === 'JPY');
    assert.ok(paid, JSON.stringify(entries));
    assert.equal(paid.amountDecimal, paid.amount?.startsWith('-') ? '-1500' : '1500');
    assert.equal(paid.balanceAfterDecimal, '88500');
  });

  test('a done export sends export.completed with the export', async () => {
    const { ws } = await paymentsFixture();
    const done = await exported(ws.api, { report: 'payments', format: 'csv', ...FEBRUARY });
    const events = await ws.api.get('/events?type=export.completed');
    assert.equal(events.status, 200, JSON.stringify(events.body));
    const [event] = events.body.data.items;
    assert.equal(event.type, 'export.completed');
    assert.deepEqual(event.data.object, done);
  });

  for (const report of ['summary', 'collections', 'overdue'] as const) {
    test(`${report}: its rows, counted when done`, async () => {
      const { ws } = await paymentsFixture();
      for (const format of ['csv', 'json', 'jsonl']) {
        const done = await exported(ws.api, { report, format, ...FEBRUARY });
        assert.equal(done.status, 'done', JSON.stringify(done));
        assert.equal(done.progress.total, done.progress.rows);
        const file = await t.app.inject({ method: 'GET', url: pathOf(done.downloadUrl) });
        assert.equal(file.statusCode, 200);
        const text = file.body;
        const rows =
          format === 'csv'
            ? Math.max(parseCsv(text).length - 1, 0)
            : format === 'json'
              ? JSON.parse(text).length
              : text.trimEnd().split('\n').filter(Boolean).length;
        assert.equal(rows, done.progress.rows, text);
      }
    });
  }

  test('every bad field is a validation_error naming it, and nothing is queued', async () => {
    const { api } = await newWorkspace(t);
    const cases: [unknown, string[]][] = [
      [{}, ['report', 'format']],
      [{ report: 'invoices', format: 'xml' }, ['report', 'format']],
      [{ report: 'payments', format: 'csv', from: 'yesterday' }, ['from']],
      [{ report: 'payments', format: 'csv', to: '2028-02-30T00:00:00Z' }, ['to']],
      [
        { report: 'payments', format: 'csv', from: '2028-03-01T00:00:00Z', to: '2028-02-01T00:00:00Z' },
        ['from'],
      ],
      [{ report: 'payments', format: 'csv', columns: ['id'] }, ['columns']],
    ];
    for (const [body, fields] of cases) {
      const res = await api.post('/reports/export', body);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.deepEqual(
        Object.keys(res.body.error.details.fields).sort(),
        [...fields].sort(),
        JSON.stringify(body),
      );
    }
    const after = await api.post('/reports/export', {
      report: 'payments',
      format: 'csv',
      from: '2028-03-01T00:00:00Z',
      to: '2028-02-01T00:00:00Z',
    });
    assert.equal(after.body.error.details.fields.from, 'must not be after to');
    const jobs = await t.ctx.db
      .selectFrom('report_exports')
      .select('id')
      .where('workspace_id', '=', (await newWorkspace(t)).workspaceId)
      .execute();
    assert.equal(jobs.length, 0);
  });

  test('reports:read reads exports but cannot start one; other scopes cannot read them', async () => {
    const ws = await newWorkspace(t);
    const queued = await startExport(ws.api, { report: 'payments', format: 'json' });
    const reader = await newKey(t, ws.workspaceId, { scopes: ['reports:read'] });
    const refused = await reader.api.post('/reports/export', { report: 'payments', format: 'csv' });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'forbidden');
    assert.equal(refused.body.error.details.required_scope, 'reports:write');
    assert.equal((await reader.api.get(`/reports/exports/${queued.id}`)).status, 200);
    const payments = await newKey(t, ws.workspaceId, { scopes: ['payments:write'] });
    const hidden = await payments.api.get(`/reports/exports/${queued.id}`);
    assert.equal(hidden.status, 403);
    assert.equal(hidden.body.error.details.required_scope, 'reports:read');
    const writer = await newKey(t, ws.workspaceId, { scopes: ['reports:write'] });
    assert.equal((await writer.api.post('/reports/export', { report: 'ledger', format: 'csv' })).status, 202);
  });

  test('without a key: 401', async () => {
    const res = await anonymous.post('/reports/export', { report: 'payments', format: 'csv' });
    assert.equal(res.status, 401);
  });
});

describe('exports made before json meant one array', () => {
  test('read as jsonl, the JSON lines they were written as', async () => {
    const ws = await newWorkspace(t);
    const queued = await startExport(ws.api, { report: 'payments', format: 'jsonl' });
    await t.ctx.db
      .updateTable('report_exports')
      .set({ format: 'json' })
      .where('id', '=', queued.id)
      .execute();
    await up(t.ctx.db, t.ctx.dialect);
    assert.equal((await exportOf(ws.api, queued.id)).format, 'jsonl');
    await t.worker.drain();
    const done = await exportOf(ws.api, queued.id);
    const file = await download(done.downloadUrl);
    assert.equal(file.headers['content-type'], 'application/x-ndjson; charset=utf-8');
  });
});

describe('GET /reports/exports/{id}', () => {
  test("another workspace's export, or the other mode's, is not_found", async () => {
    const ws = await newWorkspace(t);
    const other = await newWorkspace(t);
    const queued = await startExport(ws.api, { report: 'payments', format: 'csv' });
    for (const api of [other.api, ws.live]) {
      const res = await api.get(`/reports/exports/${queued.id}`);
      assert.equal(res.status, 404, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.equal((await ws.api.get('/reports/exports/exp_nope')).status, 404);
  });
});

describe('GET /reports/exports/{id}/download', () => {
  test('works without a key, and with one; a changed signature, id or expires is 403', async () => {
    const { ws } = await paymentsFixture();
    const done = await exported(ws.api, { report: 'payments', format: 'csv', ...FEBRUARY });
    const second = await exported(ws.api, { report: 'payments', format: 'json', ...FEBRUARY });
    assert.equal((await download(done.downloadUrl)).status, 200);
    assert.equal((await ws.api.get(pathOf(done.downloadUrl))).status, 200);

    const url = new URL(done.downloadUrl);
    const signature = url.searchParams.get('signature') ?? '';
    const expires = url.searchParams.get('expires') ?? '';
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('a') ? 'b' : 'a'}`;
    const tampered = [
      withParam(done.downloadUrl, 'signature', flipped),
      withParam(done.downloadUrl, 'signature', '0'.repeat(64)),
      withParam(done.downloadUrl, 'expires', String(Number(expires) + 86_400)),
      withParam(done.downloadUrl, 'expires', 'never'),
      done.downloadUrl.replace(done.id, second.id),
      done.downloadUrl.replace(done.id, 'exp_01AAAAAAAAAAAAAAAAAAAAAAAA'),
    ];
    for (const link of tampered) {
      assertRefused(await download(link), 403, 'forbidden', 'invalid_signature', /not valid/);
    }
    const missing = await anonymous.get(`/api/v1/reports/exports/${done.id}/download`);
    assert.equal(missing.status, 422);
    assert.deepEqual(Object.keys(missing.body.error.details.fields).sort(), ['expires', 'signature']);
  });

  test('an expired link is 403 saying so; after the clean sweep the file is gone and the download says so', async () => {
    const { ws } = await paymentsFixture();
    const done = await exported(ws.api, { report: 'payments', format: 'csv', ...FEBRUARY });
    const file = path.join(t.ctx.config.dataDir, 'exports', ws.workspaceId, `${done.id}.csv`);
    assert.ok(fs.existsSync(file));

    t.clock.advance(HOUR_MS - 1_000);
    assert.equal((await download(done.downloadUrl)).status, 200, 'still works just before the hour');
    t.clock.advance(1_000);
    assertRefused(await download(done.downloadUrl), 403, 'forbidden', 'expired', /expired/);
    const refused = await download(done.downloadUrl);
    assert.equal(refused.body.error.details.expiredAt, done.expiresAt);

    const scope = { mode: 'test' as const, workspaceId: ws.workspaceId, now: t.clock.now() };
    const counts = await runSweepsNow(t.ctx, scope);
    assert.equal(counts['exports.clean'], 1);
    assert.ok(!fs.existsSync(file), 'the file is removed');
    assert.deepEqual(fs.readdirSync(path.dirname(file)), []);
    assertRefused(await download(done.downloadUrl), 404, 'not_found', 'file_removed', /removed/);
    const after = await exportOf(ws.api, done.id);
    assert.equal(after.status, 'done');
    assert.equal(after.downloadUrl, null);
    assert.equal(after.expiresAt, done.expiresAt);
    assert.equal((await runSweepsNow(t.ctx, scope))['exports.clean'], 0, 'removed once');
  });

  test('an export not done yet has no file: 409', async () => {
    const ws = await newWorkspace(t);
    const queued = await startExport(ws.api, { report: 'payments', format: 'csv' });
    const expires = linkExpiry(t.clock.now().getTime());
    const link = downloadUrl(t.ctx.config.publicUrl, await signingSecret(t.ctx), queued.id, expires);
    const res = await download(link);
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'invalid_state');
    assert.match(res.body.error.message, /queued/);
    await t.worker.drain();
  });
});

describe('a failed export', () => {
  test('storage that cannot be written: failed with a clear error, no file left, not retried', async () => {
    const ws = await newWorkspace(t);
    const plan = await newTrack(ws.api);
    await newPayment(ws.api, plan.id);
    // A file where the workspace's export directory should be: nothing can be written under it.
    const blocked = path.join(t.ctx.config.dataDir, 'exports', ws.workspaceId);
    fs.mkdirSync(path.dirname(blocked), { recursive: true });
    fs.writeFileSync(blocked, 'in the way');
    try {
      const failed = await exported(ws.api, { report: 'payments', format: 'csv' });
      assert.equal(failed.status, 'failed', JSON.stringify(failed));
      assert.match(failed.error, /^The export file could not be written \((ENOTDIR|EEXIST)\)\.$/);
      assert.equal(failed.downloadUrl, null);
      assert.equal(failed.expiresAt, null);
      assert.equal(failed.completedAt, null);
      assert.doesNotMatch(
        failed.error,
        new RegExp(t.ctx.config.dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
      );
      await t.worker.drain();
      assert.equal((await exportOf(ws.api, failed.id)).status, 'failed', 'not run again');
      const jobs = await t.ctx.db
        .selectFrom('jobs')
        .select(['status'])
        .where('name', '=', 'reports.export')
        .where('payload', 'like', `%${failed.id}%`)
        .execute();
      assert.deepEqual(jobs, [], 'the job ended');
      const events = await ws.api.get('/events?type=export.completed');
      assert.equal(events.body.data.items.length, 0);
    } finally {
      fs.rmSync(blocked, { force: true });
    }
  });
});

describe('LocalDiskStorage', () => {
  test('shows a file under its key only once committed; abort leaves nothing', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-exports-'));
    try {
      const storage = new LocalDiskStorage(root);
      const key = 'exports/ws_1/exp_1.csv';
      const upload = await storage.put(key);
      upload.stream.end('a,b\n1,2\n');
      assert.equal(await storage.get(key), null, 'not visible while written');
      await upload.commit();
      const read = await storage.get(key);
      assert.ok(read);
      let text = '';
      for await (const chunk of read) text += chunk;
      assert.equal(text, 'a,b\n1,2\n');

      const dropped = await storage.put('exports/ws_1/exp_2.csv');
      dropped.stream.write('half');
      await dropped.abort();
      assert.deepEqual(fs.readdirSync(path.join(root, 'exports', 'ws_1')), ['exp_1.csv']);

      await storage.remove(key);
      await storage.remove(key);
      assert.equal(await storage.get(key), null);
      await assert.rejects(storage.put('../outside.csv'));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
