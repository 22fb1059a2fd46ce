import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { consoleGet, consolePerson, consolePost } from '../helpers/console.js';
import { newPayment, newTrack } from '../helpers/factories.js';
import { receiverSet } from '../helpers/receiver.js';

// Webhooks, exports and the test clock in the console's settings, all through the API: an endpoint added (its
// secret shown once), tested, disabled and enabled, a delivery sent again; an export requested and downloaded;
// the test clock moved forward.

let t: TestApp;
const receivers = receiverSet();
before(async () => {
  t = await buildTestApp();
});
after(async () => {
  await receivers.closeAll();
  await t.close();
});

const mainOf = (html: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>'));

describe('webhooks in the console', () => {
  test('an endpoint is added with its secret shown once, tested, a delivery sent again, disabled and enabled', async () => {
    const owner = await consolePerson(t, 'owner');
    const receiver = await receivers.start();
    const made = await consolePost(t, owner, '/console/settings/webhooks', {
      url: receiver.url,
      description: 'Order system',
      eventTypes: 'payment.recorded, webhook.test',
    });
    assert.equal(made.statusCode, 201, made.body);
    const secret = /value="(whsec_[^"]+)"/.exec(mainOf(made.body))?.[1];
    assert.ok(secret, 'the secret is on the page');
    const id = /href="\/console\/settings\/webhooks\/(whe_\w+)"/.exec(made.body)?.[1];
    assert.ok(id);
    const endpoint = await owner.workspace.api.get(`/webhooks/${id}`);
    assert.deepEqual(endpoint.body.data.eventTypes, ['payment.recorded', 'webhook.test']);
    assert.equal(endpoint.body.data.description, 'Order system');

    const list = await consoleGet(t, owner, '/console/settings/webhooks');
    assert.match(mainOf(list.body), /Order system/);
    assert.doesNotMatch(list.body, /whsec_/);

    const tested = await consolePost(t, owner, `/console/settings/webhooks/${id}/test`, {});
    assert.equal(tested.statusCode, 303, tested.body);
    assert.equal(tested.headers.location, `/console/settings/webhooks/${id}?done=tested`);
    await t.worker.drain();
    assert.equal(receiver.requests.length, 1);
    const page = await consoleGet(t, owner, `/console/settings/webhooks/${id}?done=tested`);
    assert.equal(page.statusCode, 200);
    const eventId = /name="event_id" value="(evt_\w+)"/.exec(page.body)?.[1];
    assert.ok(eventId, 'a delivery to send again');
    assert.match(mainOf(page.body), /webhook\.test/);
    assert.doesNotMatch(page.body, /whsec_/);

    const resent = await consolePost(t, owner, `/console/settings/webhooks/${id}/resend`, {
      event_id: eventId,
    });
    assert.equal(resent.statusCode, 303, resent.body);
    assert.equal(resent.headers.location, `/console/settings/webhooks/${id}?done=resent`);
    await t.worker.drain();
    assert.equal(receiver.requests.length, 2);
    assert.equal(receiver.requests[1]?.headers['webhook-id'], eventId);
    const unknown = await consolePost(t, owner, `/console/settings/webhooks/${id}/resend`, {
      event_id: 'evt_00000000000000000000000000',
    });
    assert.equal(unknown.statusCode, 404);
    assert.match(mainOf(unknown.body), /class="problem"/);

    const viewer = await consolePerson(t, 'viewer', owner.workspace);
    const viewed = await consoleGet(t, viewer, `/console/settings/webhooks/${id}`);
    assert.equal(viewed.statusCode, 200);
    assert.match(mainOf(viewed.body), /webhook\.test/);
    assert.doesNotMatch(mainOf(viewed.body), /<form|whsec_/);
    const forged = await consolePost(t, viewer, `/console/settings/webhooks/${id}/resend`, {
      event_id: eventId,
    });
    assert.equal(forged.statusCode, 403);

    const disabled = await consolePost(t, owner, `/console/settings/webhooks/${id}/disable`, {});
    assert.equal(disabled.statusCode, 303);
    assert.equal((await owner.workspace.api.get(`/webhooks/${id}`)).body.data.status, 'disabled');
    const shown = await consoleGet(t, owner, `/console/settings/webhooks/${id}?done=disabled`);
    assert.match(mainOf(shown.body), /Enable endpoint/);
    assert.doesNotMatch(mainOf(shown.body), /Resend/);
    const enabled = await consolePost(t, owner, `/console/settings/webhooks/${id}/enable`, {});
    assert.equal(enabled.statusCode, 303);
    assert.equal((await owner.workspace.api.get(`/webhooks/${id}`)).body.data.status, 'enabled');

    const log = await owner.workspace.api.get(`/audit-log?record_id=${id}`);
    const actions = log.body.data.items.map((e: { action: string }) => e.action);
    assert.ok(actions.includes('webhooks.create'));
    assert.ok(log.body.data.items.every((e: { actor: { id: string } }) => e.actor.id === owner.id));
  });

  test('a bad URL or event type is a field error and adds nothing; an unknown endpoint is not found', async () => {
    const owner = await consolePerson(t, 'owner');
    const bad = await consolePost(t, owner, '/console/settings/webhooks', {
      url: 'not a url',
      eventTypes: 'payment.teleported',
    });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.match(mainOf(bad.body), /id="f-url-error"/);
    assert.match(mainOf(bad.body), /value="not a url"/);
    const unknownType = await consolePost(t, owner, '/console/settings/webhooks', {
      url: 'https://example.com/hooks',
      eventTypes: 'payment.teleported',
    });
    assert.equal(unknownType.statusCode, 422, unknownType.body);
    assert.match(mainOf(unknownType.body), /id="f-eventTypes-error">unknown event type/);
    const list = await owner.workspace.api.get('/webhooks');
    assert.equal(list.body.data.items.length, 0);
    const missing = await consoleGet(t, owner, '/console/settings/webhooks/whe_00000000000000000000000000');
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /Back to the list/);
  });
});

describe('exports in the console', () => {
  test('an export is requested, written by the worker and downloaded', async () => {
    const owner = await consolePerson(t, 'owner');
    const track = await newTrack(owner.workspace.api, { amount: 100_000 });
    await newPayment(owner.workspace.api, track.id, { amount: 25_000 });
    const requested = await consolePost(t, owner, '/console/settings/exports', {
      report: 'payments',
      format: 'csv',
      from: '',
      to: '',
    });
    assert.equal(requested.statusCode, 303, requested.body);
    assert.equal(requested.headers.location, '/console/settings/exports?done=requested');
    const queued = await consoleGet(t, owner, '/console/settings/exports?done=requested');
    assert.match(mainOf(queued.body), /The export is queued/);
    assert.match(mainOf(queued.body), /queued<\/span>/);

    await t.worker.drain();
    const done = await consoleGet(t, owner, '/console/settings/exports');
    const link = /href="(\/console\/settings\/exports\/exp_\w+\/download)"/.exec(done.body)?.[1];
    assert.ok(link, 'a download link once done');
    const redirect = await consoleGet(t, owner, link);
    assert.equal(redirect.statusCode, 303);
    const location = String(redirect.headers.location);
    assert.match(location, /^\/api\/v1\/reports\/exports\/exp_\w+\/download\?expires=\d+&signature=/);
    const file = await t.app.inject({ method: 'GET', url: location });
    assert.equal(file.statusCode, 200);
    assert.match(String(file.headers['content-type']), /^text\/csv/);
    assert.match(file.body, /amountDecimal/);
    assert.match(file.body, /250\.00/);
  });

  test('a bad date is a field error; a viewer may download but not request; an unknown export is not found', async () => {
    const owner = await consolePerson(t, 'owner');
    const bad = await consolePost(t, owner, '/console/settings/exports', {
      report: 'ledger',
      format: 'json',
      from: '2027-02-30',
      to: '2027-01-01',
    });
    assert.equal(bad.statusCode, 422);
    assert.match(mainOf(bad.body), /id="f-from-error">must be a date/);
    const backwards = await consolePost(t, owner, '/console/settings/exports', {
      report: 'ledger',
      format: 'json',
      from: '2027-02-01',
      to: '2027-01-01',
    });
    assert.equal(backwards.statusCode, 422);
    assert.match(mainOf(backwards.body), /id="f-from-error">must not be after To/);

    const ranged = await consolePost(t, owner, '/console/settings/exports', {
      report: 'ledger',
      format: 'json',
      from: '2027-01-01',
      to: '2027-01-31',
    });
    assert.equal(ranged.statusCode, 303, ranged.body);
    await t.worker.drain();
    const viewer = await consolePerson(t, 'viewer', owner.workspace);
    const page = await consoleGet(t, viewer, '/console/settings/exports');
    assert.match(mainOf(page.body), /1 Jan 2027 to 31 Jan 2027/);
    const link = /href="(\/console\/settings\/exports\/exp_\w+\/download)"/.exec(page.body)?.[1];
    assert.ok(link);
    assert.equal((await consoleGet(t, viewer, link)).statusCode, 303);
    const unknown = await consoleGet(
      t,
      owner,
      '/console/settings/exports/exp_00000000000000000000000000/download',
    );
    assert.equal(unknown.statusCode, 404);
  });
});

describe('the test clock in the console', () => {
  test('advancing it moves GET /account/test-clock; a bad amount is a field error and moves nothing', async () => {
    const owner = await consolePerson(t, 'owner');
    const before = (await owner.workspace.api.get('/account/test-clock')).body.data;
    const page = await consoleGet(t, owner, '/console/settings/test-clock');
    assert.match(mainOf(page.body), /at real time/);

    const bad = await consolePost(t, owner, '/console/settings/test-clock', { amount: '-3', unit: 'days' });
    assert.equal(bad.statusCode, 422);
    assert.match(mainOf(bad.body), /id="f-amount-error">must be a whole number/);
    const tooFar = await consolePost(t, owner, '/console/settings/test-clock', {
      amount: '5000',
      unit: 'days',
    });
    assert.equal(tooFar.statusCode, 422, tooFar.body);
    assert.match(mainOf(tooFar.body), /id="f-amount-error"/);
    assert.equal((await owner.workspace.api.get('/account/test-clock')).body.data.offsetMs, before.offsetMs);

    const moved = await consolePost(t, owner, '/console/settings/test-clock', { amount: '3', unit: 'days' });
    assert.equal(moved.statusCode, 303, moved.body);
    assert.equal(moved.headers.location, '/console/settings/test-clock?done=advanced');
    const after = (await owner.workspace.api.get('/account/test-clock')).body.data;
    assert.equal(after.offsetMs - before.offsetMs, 3 * 86_400_000);
    const shown = await consoleGet(t, owner, '/console/settings/test-clock?done=advanced');
    assert.match(mainOf(shown.body), /3 days ahead of real time/);
    assert.match(mainOf(shown.body), /The test clock moved forward/);

    const hours = await consolePost(t, owner, '/console/settings/test-clock', { amount: '5', unit: 'hours' });
    assert.equal(hours.statusCode, 303);
    const later = (await owner.workspace.api.get('/account/test-clock')).body.data;
    assert.equal(later.offsetMs - after.offsetMs, 5 * 3_600_000);
  });
});
