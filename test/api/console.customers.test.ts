import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { Client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newSchedule } from '../helpers/collections.js';
import { type ConsolePerson, consoleGet, consolePerson, consolePost } from '../helpers/console.js';
import { newCustomer, newPayment, newTrack, newWorkspace } from '../helpers/factories.js';
import { remind } from '../helpers/messages.js';

// Customers in the console: the list and its search (by name, by a phone number however it is written, by
// e-mail) with each customer's balance per currency; a customer's page with their plans, instalments, payments,
// reminders, mandates and ledger; the forms to create a customer, keep notes, edit, and send a reminder. Owners
// and admins do all of it, a collector sends reminders and keeps notes, a viewer only looks.

const NOW = '2028-01-20T12:00:00.000Z';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(NOW)) });
});
after(() => t.close());

const lagos = () => newWorkspace(t, { timezone: 'Africa/Lagos', country: 'NG' });

async function customersNamed(api: Client, q: string) {
  const res = await api.get(`/customers?q=${encodeURIComponent(q)}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items as { id: string; name: string; phone: string; email: string | null }[];
}

/** The part of a page from a heading's id to the next section. */
function part(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  assert.ok(start >= 0, `the page has ${id}`);
  const end = html.indexOf('<section', start);
  return html.slice(start, end < 0 ? undefined : end);
}

async function remindersOf(api: Client, customerId: string) {
  const res = await api.get(`/reminders?customerId=${customerId}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items as { id: string; channel: string; message: string }[];
}

const get = (person: ConsolePerson, path: string) => consoleGet(t, person, path);
const post = (person: ConsolePerson, path: string, fields: Record<string, string>) =>
  consolePost(t, person, path, { idempotency_key: randomUUID(), ...fields });

describe('console: customers list and search', () => {
  test('search finds a customer by name, by phone written another way, and by e-mail; balances show per currency', async () => {
    const ws = await lagos();
    const viewer = await consolePerson(t, 'viewer', ws);
    const ada = await newCustomer(ws.api, {
      name: 'Ada Obi',
      phone: '0803 123 4567',
      email: 'ada@example.com',
    });
    const bola = await newCustomer(ws.api, { name: 'Bola Ade', phone: '+2348097654321' });
    assert.equal(ada.phone, '+2348031234567');
    await newTrack(ws.api, { customerId: ada.id, amount: 150_000 });
    await newTrack(ws.api, { customerId: ada.id, amount: 2_500, currency: 'USD', title: 'Laptop' });

    const all = await get(viewer, '/console/customers');
    assert.equal(all.statusCode, 200, all.body);
    assert.match(all.body, /Ada Obi/);
    assert.match(all.body, /Bola Ade/);
    assert.match(all.body, /₦1,500\.00 owed/);
    assert.match(all.body, /\$25\.00 owed/);
    assert.match(all.body, /Nothing owed/);
    assert.match(all.body, /href="tel:\+2348031234567"/);

    for (const q of ['Ada', '+2348031234567', '0803 123 4567', '0803-123-4567', 'ada@example']) {
      const found = await get(viewer, `/console/customers?q=${encodeURIComponent(q)}`);
      assert.equal(found.statusCode, 200, found.body);
      assert.match(found.body, new RegExp(`/console/customers/${ada.id}`), q);
      assert.doesNotMatch(found.body, new RegExp(`/console/customers/${bola.id}`), q);
    }
    const none = await get(viewer, '/console/customers?q=Zainab');
    assert.match(none.body, /No customer matches that/);
    // A viewer cannot add customers.
    assert.doesNotMatch(all.body, /New customer/);
  });

  test('the list is paged with the API cursor and keeps the search', async () => {
    const ws = await lagos();
    const owner = await consolePerson(t, 'owner', ws);
    for (let i = 0; i < 27; i += 1) await newCustomer(ws.api, { name: `Paged ${i}` });
    const first = await get(owner, '/console/customers?q=Paged');
    const next = /href="(\/console\/customers\?q=Paged&amp;cursor=[^"]+)">Next page/.exec(first.body);
    assert.ok(next, 'a link to the next page');
    const second = await get(owner, (next[1] as string).replaceAll('&amp;', '&'));
    assert.equal(second.statusCode, 200);
    assert.equal((second.body.match(/>Paged \d+</g) ?? []).length, 2);
  });
});

describe("console: a customer's page", () => {
  test('shows the plans, instalments, payments, reminders, mandates and a timeline of the ledger', async () => {
    const ws = await lagos();
    const admin = await consolePerson(t, 'admin', ws);
    const customer = await newCustomer(ws.api, {
      name: 'Ada Obi',
      phone: '+2348031234567',
      email: 'ada@example.com',
      notes: 'Pays on Fridays',
    });
    const plan = await newTrack(ws.api, { customerId: customer.id, amount: 300_000, title: 'Generator' });
    const schedule = await newSchedule(ws.api, {
      target_type: 'payment_plan',
      target_id: plan.id,
      frequency: 'installment_sequence',
      fixed_amount: 100_000,
      start_date: '2028-01-10T09:00:00Z',
      collection_method: 'auto_debit',
    });
    const payment = await newPayment(ws.api, plan.id, { amount: 40_000, method: 'cash' });
    await remind(t, ws.api, { trackId: plan.id, channel: 'sms' });
    const mandate = await ws.api.post('/payment-mandates', {
      payer_type: 'customer',
      provider: 'gatewayA',
      schedule_id: schedule.id,
    });
    assert.equal(mandate.status, 201, JSON.stringify(mandate.body));

    const page = await get(admin, `/console/customers/${customer.id}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h1>Ada Obi<\/h1>/);
    assert.match(page.body, /href="tel:\+2348031234567">\+234 803 123 4567/);
    assert.match(page.body, /href="https:\/\/wa\.me\/2348031234567"/);
    assert.match(page.body, /₦3,000\.00 owed|₦2,600\.00 owed/);
    assert.match(page.body, /Pays on Fridays/);

    const plans = part(page.body, 'plans');
    assert.match(plans, new RegExp(`href="/console/plans/${plan.id}">Generator`));
    assert.match(plans, /₦2,600\.00/);
    assert.match(plans, new RegExp(`href="/console/payments/new\\?track_id=${plan.id}">Record payment`));
    const instalments = part(page.body, 'obligations');
    assert.equal((instalments.match(/<tr><td>/g) ?? []).length, 3);
    assert.match(instalments, /10 Jan 2028/);
    assert.match(instalments, /overdue/);
    assert.match(instalments, /₦600\.00/, 'what the first instalment still asks after the payment');
    const payments = part(page.body, 'payments');
    assert.match(payments, new RegExp(`href="/console/payments/${payment.id}"`));
    assert.match(payments, /₦400\.00/);
    assert.match(payments, /cash/);
    const reminders = part(page.body, 'reminders');
    assert.match(reminders, /SMS/);
    assert.match(reminders, /\+2348031234567/);
    assert.match(reminders, /simulated|delivered/);
    const mandates = part(page.body, 'mandates');
    assert.match(mandates, /gatewayA/);
    assert.match(mandates, /pending/);
    const timeline = part(page.body, 'timeline');
    assert.match(timeline, /Plan charged/);
    assert.match(timeline, /Payment recorded/);
    assert.match(timeline, /-₦400\.00/);
    // An admin may do everything here.
    assert.match(
      page.body,
      new RegExp(`href="/console/reminders/new\\?customer_id=${customer.id}">Send reminder`),
    );
    assert.match(page.body, new RegExp(`href="/console/customers/${customer.id}/edit">Edit customer`));
    assert.match(page.body, new RegExp(`action="/console/customers/${customer.id}/notes"`));
  });

  test('an unknown customer, or one of another workspace, is a 404 with a way back', async () => {
    const ws = await lagos();
    const other = await lagos();
    const owner = await consolePerson(t, 'owner', ws);
    const theirs = await newCustomer(other.api);
    for (const path of [
      `/console/customers/${theirs.id}`,
      '/console/customers/cus_nothing',
      '/console/customers/not-an-id',
      `/console/customers/${theirs.id}/edit`,
    ]) {
      const page = await get(owner, path);
      assert.equal(page.statusCode, 404, path);
      assert.match(page.body, /href="\/console\/customers">Back to customers/);
    }
  });
});

describe('console: creating and changing customers', () => {
  test('an owner creates a customer with the phone written locally; the API has it in E.164', async () => {
    const ws = await lagos();
    const owner = await consolePerson(t, 'owner', ws);
    const form = await get(owner, '/console/customers/new');
    assert.equal(form.statusCode, 200, form.body);
    assert.match(form.body, /<label for="f-phone">Phone<\/label>/);
    const key = randomUUID();
    const fields = {
      idempotency_key: key,
      name: 'Ngozi Nwosu',
      phone: '0805 555 1234',
      email: 'ngozi@example.com',
      notes: 'Shop at Ikeja',
    };
    const created = await consolePost(t, owner, '/console/customers', fields);
    assert.equal(created.statusCode, 303, created.body);
    const location = String(created.headers.location);
    assert.match(location, /^\/console\/customers\/cus_\w+\?done=created$/);
    const [customer] = await customersNamed(ws.api, 'Ngozi');
    assert.equal(customer?.phone, '+2348055551234');
    assert.equal(customer?.email, 'ngozi@example.com');
    assert.equal(location, `/console/customers/${customer?.id}?done=created`);
    const shown = await get(owner, location);
    assert.match(shown.body, /Customer created\./);
    // The same form sent twice makes one customer.
    const again = await consolePost(t, owner, '/console/customers', fields);
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, location);
    assert.equal((await customersNamed(ws.api, 'Ngozi')).length, 1);
  });

  test("bad input shows the API's complaint beside the field, keeps what was typed and creates nothing", async () => {
    const ws = await lagos();
    const owner = await consolePerson(t, 'owner', ws);
    const refused = await post(owner, '/console/customers', {
      name: 'Tunde Bad',
      phone: '12',
      email: 'tunde@example.com',
    });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(refused.body, /class="problem" role="alert"/);
    assert.match(refused.body, /id="f-phone"[^>]*aria-invalid="true"/);
    assert.match(refused.body, /<span class="field-error" id="f-phone-error">[^<]+<\/span>/);
    assert.match(refused.body, /value="Tunde Bad"/);
    assert.match(refused.body, /value="tunde@example.com"/);
    const badEmail = await post(owner, '/console/customers', {
      name: 'Tunde Bad',
      phone: '0803 123 4567',
      email: 'not-an-email',
    });
    assert.equal(badEmail.statusCode, 422, badEmail.body);
    assert.match(badEmail.body, /id="f-email-error"/);
    assert.equal((await customersNamed(ws.api, 'Tunde')).length, 0);
    const nameless = await post(owner, '/console/customers', { name: '', phone: '0803 123 4567' });
    assert.equal(nameless.statusCode, 422);
    assert.match(nameless.body, /id="f-name-error"/);
    assert.match(nameless.body, /value="0803 123 4567"/);
  });

  test('an admin edits a customer; a bad phone is refused beside the field and changes nothing', async () => {
    const ws = await lagos();
    const admin = await consolePerson(t, 'admin', ws);
    const customer = await newCustomer(ws.api, { name: 'Ada Obi', email: 'ada@example.com' });
    const form = await get(admin, `/console/customers/${customer.id}/edit`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /value="Ada Obi"/);
    const bad = await post(admin, `/console/customers/${customer.id}/edit`, {
      name: 'Ada Obi-Eze',
      phone: 'call me',
      email: '',
      notes: '',
    });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.match(bad.body, /id="f-phone-error"/);
    assert.equal((await ws.api.get(`/customers/${customer.id}`)).body.data.name, 'Ada Obi');
    const saved = await post(admin, `/console/customers/${customer.id}/edit`, {
      name: 'Ada Obi-Eze',
      phone: customer.phone,
      email: '',
      notes: 'Moved to Lekki',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/customers/${customer.id}?done=saved`);
    const now = (await ws.api.get(`/customers/${customer.id}`)).body.data;
    assert.equal(now.name, 'Ada Obi-Eze');
    assert.equal(now.email, null);
    assert.equal(now.notes, 'Moved to Lekki');
  });

  test('a collector keeps notes but cannot rename, edit or create a customer', async () => {
    const ws = await lagos();
    const collector = await consolePerson(t, 'collector', ws);
    const customer = await newCustomer(ws.api, { name: 'Ada Obi' });
    const page = await get(collector, `/console/customers/${customer.id}`);
    assert.match(page.body, new RegExp(`action="/console/customers/${customer.id}/notes"`));
    assert.match(page.body, />Send reminder</);
    assert.doesNotMatch(page.body, />Edit customer</);
    assert.doesNotMatch((await get(collector, '/console/customers')).body, />New customer</);

    const noted = await post(collector, `/console/customers/${customer.id}/notes`, {
      notes: 'Promised to pay Friday',
    });
    assert.equal(noted.statusCode, 303, noted.body);
    assert.equal(noted.headers.location, `/console/customers/${customer.id}?done=notes_saved`);
    assert.equal((await ws.api.get(`/customers/${customer.id}`)).body.data.notes, 'Promised to pay Friday');
    assert.match((await get(collector, String(noted.headers.location))).body, /Notes saved\./);
    const tooLong = await post(collector, `/console/customers/${customer.id}/notes`, {
      notes: 'x'.repeat(2001),
    });
    assert.equal(tooLong.statusCode, 422, tooLong.body);
    assert.match(tooLong.body, /id="f-notes-error"/);
    assert.equal((await ws.api.get(`/customers/${customer.id}`)).body.data.notes, 'Promised to pay Friday');

    const renamed = await post(collector, `/console/customers/${customer.id}/edit`, {
      name: 'Someone Else',
      phone: customer.phone,
    });
    assert.equal(renamed.statusCode, 403);
    assert.equal((await get(collector, `/console/customers/${customer.id}/edit`)).statusCode, 403);
    assert.equal((await get(collector, '/console/customers/new')).statusCode, 403);
    const created = await post(collector, '/console/customers', { name: 'New One', phone: '0803 000 0001' });
    assert.equal(created.statusCode, 403);
    const now = (await ws.api.get(`/customers/${customer.id}`)).body.data;
    assert.equal(now.name, 'Ada Obi');
    assert.equal((await customersNamed(ws.api, 'New One')).length, 0);
  });

  test('a viewer gets no forms, and a viewer’s POST is refused and changes nothing', async () => {
    const ws = await lagos();
    const viewer = await consolePerson(t, 'viewer', ws);
    const customer = await newCustomer(ws.api, { name: 'Ada Obi', notes: 'Pays on Fridays' });
    const plan = await newTrack(ws.api, { customerId: customer.id });
    const page = await get(viewer, `/console/customers/${customer.id}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Pays on Fridays/);
    const main = page.body.slice(page.body.indexOf('<main'));
    assert.doesNotMatch(main, /<form method="post"/);
    assert.doesNotMatch(main, />Send reminder<|>Record payment<|>Edit customer</);

    for (const [path, fields] of [
      [`/console/customers/${customer.id}/notes`, { notes: 'changed' }],
      [`/console/customers/${customer.id}/edit`, { name: 'Changed', phone: customer.phone }],
      ['/console/customers', { name: 'Viewer Made', phone: '0803 000 0002' }],
      ['/console/reminders', { track_id: plan.id, channel: 'sms' }],
    ] as const) {
      const refused = await post(viewer, path, fields);
      assert.equal(refused.statusCode, 403, path);
    }
    assert.equal((await get(viewer, `/console/reminders/new?track_id=${plan.id}`)).statusCode, 403);
    assert.equal((await get(viewer, '/console/customers/new')).statusCode, 403);
    const now = (await ws.api.get(`/customers/${customer.id}`)).body.data;
    assert.equal(now.notes, 'Pays on Fridays');
    assert.equal(now.name, 'Ada Obi');
    assert.equal((await customersNamed(ws.api, 'Viewer Made')).length, 0);
    assert.equal((await remindersOf(ws.api, customer.id)).length, 0);
  });
});

describe('console: sending a reminder', () => {
  test('a reminder sent from the console is queued, sent at once and shows in GET /reminders/logs', async () => {
    const ws = await lagos();
    const collector = await consolePerson(t, 'collector', ws);
    const customer = await newCustomer(ws.api, { name: 'Ada Obi', phone: '+2348031234567' });
    const plan = await newTrack(ws.api, { customerId: customer.id, amount: 100_000, title: 'Fridge' });
    const form = await get(collector, `/console/reminders/new?track_id=${plan.id}&back=/console/today`);
    assert.equal(form.statusCode, 200, form.body);
    assert.match(form.body, /<label for="f-channel">Channel<\/label>/);
    assert.match(form.body, /<option value="whatsapp">WhatsApp: \+2348031234567<\/option>/);
    assert.match(form.body, /name="back" value="\/console\/today"/);

    const key = randomUUID();
    const fields = {
      idempotency_key: key,
      track_id: plan.id,
      channel: 'whatsapp',
      message: 'Hello Ada, a reminder about your fridge.',
      back: '/console/today',
    };
    const sent = await consolePost(t, collector, '/console/reminders', fields);
    assert.equal(sent.statusCode, 303, sent.body);
    assert.equal(sent.headers.location, '/console/today?done=reminder_sent');
    // Sent twice by a double click: one reminder.
    const again = await consolePost(t, collector, '/console/reminders', fields);
    assert.equal(again.statusCode, 303, again.body);
    await t.worker.drain();

    const [reminder, ...more] = await remindersOf(ws.api, customer.id);
    assert.equal(more.length, 0);
    assert.equal(reminder?.channel, 'whatsapp');
    assert.equal(reminder?.message, 'Hello Ada, a reminder about your fridge.');
    const logs = await ws.api.get(`/reminders/logs?reminderId=${reminder?.id}`);
    assert.equal(logs.status, 200);
    assert.equal(logs.body.data.items.length, 1);
    assert.equal(logs.body.data.items[0].channel, 'whatsapp');
    assert.equal(logs.body.data.items[0].to, '+2348031234567');
    const today = await get(collector, '/console/today?done=reminder_sent');
    assert.match(today.body, /Reminder sent\./);
  });

  test("a channel the customer cannot be reached on shows the API's complaint beside it and queues nothing", async () => {
    const ws = await lagos();
    const owner = await consolePerson(t, 'owner', ws);
    const customer = await newCustomer(ws.api, { name: 'Ada Obi' });
    const form = await get(owner, `/console/reminders/new?customer_id=${customer.id}`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /E-mail \(no address\)/);
    assert.match(form.body, /name="back" value="\/console\/customers\/cus_\w+"/);
    const refused = await post(owner, '/console/reminders', { customer_id: customer.id, channel: 'email' });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(
      refused.body,
      /<span class="field-error" id="f-channel-error">[^<]*e-mail address[^<]*<\/span>/,
    );
    const unknown = await post(owner, '/console/reminders', { customer_id: customer.id, channel: 'pigeon' });
    assert.equal(unknown.statusCode, 422, unknown.body);
    assert.match(unknown.body, /id="f-channel-error"/);
    assert.equal((await remindersOf(ws.api, customer.id)).length, 0);

    // Without a channel the API picks SMS for a customer without e-mail; the form goes back to the customer.
    const sent = await post(owner, '/console/reminders', {
      customer_id: customer.id,
      back: 'https://elsewhere.example/',
    });
    assert.equal(sent.statusCode, 303, sent.body);
    assert.equal(sent.headers.location, `/console/customers/${customer.id}?done=reminder_sent`);
    const [reminder] = await remindersOf(ws.api, customer.id);
    assert.equal(reminder?.channel, 'sms');
    assert.match((await get(owner, String(sent.headers.location))).body, /Reminder sent\./);
  });

  test('a reminder about nothing known is a 404', async () => {
    const ws = await lagos();
    const owner = await consolePerson(t, 'owner', ws);
    assert.equal((await get(owner, '/console/reminders/new')).statusCode, 404);
    assert.equal((await get(owner, '/console/reminders/new?track_id=trk_unknown')).statusCode, 404);
    assert.equal((await post(owner, '/console/reminders', { customer_id: 'cus_unknown' })).statusCode, 404);
  });
});

describe('console: the customer’s page link and receipts', () => {
  test('a collector sends a customer the link to their page; a viewer cannot; a payment’s page links its receipt', async () => {
    const ws = await lagos();
    const collector = await consolePerson(t, 'collector', ws);
    const viewer = await consolePerson(t, 'viewer', ws);
    const customer = await newCustomer(ws.api, { name: 'Ada Obi' });
    const page = await get(collector, `/console/customers/${customer.id}`);
    assert.match(page.body, new RegExp(`action="/console/customers/${customer.id}/page-link"`));
    assert.doesNotMatch((await get(viewer, `/console/customers/${customer.id}`)).body, /page-link/);

    const sent = await post(collector, `/console/customers/${customer.id}/page-link`, {
      channel: 'whatsapp',
    });
    assert.equal(sent.statusCode, 303, sent.body);
    assert.match(String(sent.headers.location), /\?done=page_link_sent#reminders$/);
    const [reminder] = await remindersOf(ws.api, customer.id);
    assert.equal(reminder?.channel, 'whatsapp');
    assert.match(String(reminder?.message), /\{customer_page_link\}/);
    const links = (await ws.api.get(`/customers/${customer.id}/portal-links`)).body.data.items;
    assert.equal(links.length, 1);

    const refused = await post(viewer, `/console/customers/${customer.id}/page-link`, { channel: 'sms' });
    assert.equal(refused.statusCode, 403);
    assert.equal((await remindersOf(ws.api, customer.id)).length, 1);

    const plan = await newTrack(ws.api, { customerId: customer.id, amount: 10_000 });
    const payment = await newPayment(ws.api, plan.id, { amount: 2_500 });
    const shown = await get(collector, `/console/payments/${payment.id}`);
    assert.ok(shown.body.includes(`href="/r/${payment.receipt.code.replaceAll('-', '')}"`));
    assert.ok(shown.body.includes(payment.receipt.number));
  });
});
