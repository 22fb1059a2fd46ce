import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { client } from '../helpers/api.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { consoleGet, consolePerson, consolePost } from '../helpers/console.js';

// API keys in the console's settings: made in the mode of the visit with the scopes chosen, shown once, revoked
// after a confirmation; each creation and revocation in the audit trail with the person as actor.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const mainOf = (html: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>'));
const KEY = /value="(pt_(?:test|live)_[0-9A-Za-z]{32})"/;

describe('API keys in the console', () => {
  test('a key made with chosen scopes is shown once and works against the API with only those scopes; revoked, it is refused', async () => {
    const owner = await consolePerson(t, 'owner');
    const made = await consolePost(t, owner, '/console/settings/keys', {
      idempotency_key: '0b6f3c1e-8d2a-4c47-9a31-5e2f7b9d1c01',
      name: 'Shop website',
      access: 'chosen',
      scope_customers: 'read',
      scope_payments: 'write',
      scope_tracks: 'none',
    });
    assert.equal(made.statusCode, 201, made.body);
    const key = KEY.exec(mainOf(made.body))?.[1];
    assert.ok(key, 'the key is on the page');
    assert.match(key, /^pt_test_/);
    assert.match(mainOf(made.body), /shown only this once/);
    assert.match(mainOf(made.body), /customers:read, payments:write/);

    const api = client(t, key);
    assert.equal((await api.get('/customers')).status, 200);
    assert.equal((await api.get('/payments')).status, 200);
    assert.equal((await api.get('/tracks')).status, 403);
    assert.equal((await api.post('/customers', { name: 'Ada Obi' })).status, 403);
    assert.equal((await api.get('/account')).status, 403);

    // The list shows its prefix, never the key; the same form sent again makes nothing.
    const list = await consoleGet(t, owner, '/console/settings/keys');
    assert.doesNotMatch(list.body, new RegExp(key));
    assert.match(mainOf(list.body), /Shop website/);
    assert.match(mainOf(list.body), new RegExp(`${key.slice(0, 12)}…`));
    const twice = await consolePost(t, owner, '/console/settings/keys', {
      idempotency_key: '0b6f3c1e-8d2a-4c47-9a31-5e2f7b9d1c01',
      name: 'Shop website',
      access: 'chosen',
      scope_customers: 'read',
    });
    assert.equal(twice.statusCode, 409);
    assert.doesNotMatch(twice.body, /pt_test_[0-9A-Za-z]{32}/);

    const id = /href="\/console\/settings\/keys\/(key_\w+)\/revoke"/.exec(list.body)?.[1];
    assert.ok(id);
    const confirm = await consoleGet(t, owner, `/console/settings/keys/${id}/revoke`);
    assert.equal(confirm.statusCode, 200);
    assert.match(mainOf(confirm.body), /Revoke the key <strong>Shop website/);
    assert.match(mainOf(confirm.body), /<button type="submit" class="danger">Revoke key<\/button>/);
    // Seeing the confirmation changes nothing.
    assert.equal((await api.get('/customers')).status, 200);
    const revoked = await consolePost(t, owner, `/console/settings/keys/${id}/revoke`, { reason: 'Leaked' });
    assert.equal(revoked.statusCode, 303, revoked.body);
    assert.equal(revoked.headers.location, '/console/settings/keys?done=revoked');
    assert.equal((await api.get('/customers')).status, 401);
    const shown = await consoleGet(t, owner, '/console/settings/keys?done=revoked');
    assert.match(mainOf(shown.body), /The key is revoked/);
    assert.match(mainOf(shown.body), /revoked<\/span>/);

    const log = await owner.workspace.api.get(`/audit-log?record_id=${id}`);
    const [revocation, creation] = log.body.data.items;
    assert.equal(revocation.action, 'api-keys.revoke');
    assert.deepEqual(revocation.actor, { type: 'user', id: owner.id });
    assert.equal(revocation.reason, 'Leaked');
    assert.equal(creation.action, 'api-keys.create');
    assert.deepEqual(creation.actor, { type: 'user', id: owner.id });
    assert.deepEqual(creation.record, { type: 'apiKey', id });
    assert.deepEqual(creation.changes.scopes, [null, ['customers:read', 'payments:write']]);
    assert.doesNotMatch(JSON.stringify(log.body), new RegExp(key));
  });

  test('a key is made in the mode of the visit; all scopes when asked; none chosen is a field error', async () => {
    const owner = await consolePerson(t, 'owner');
    const none = await consolePost(t, owner, '/console/settings/keys', { access: 'chosen', name: 'Nothing' });
    assert.equal(none.statusCode, 422);
    assert.match(mainOf(none.body), /choose at least one thing the key may use/);
    assert.match(mainOf(none.body), /value="Nothing"/);

    await consolePost(t, owner, '/console/switch', { workspace_id: owner.workspaceId, mode: 'live' });
    const made = await consolePost(t, owner, '/console/settings/keys', { access: 'all' });
    assert.equal(made.statusCode, 201, made.body);
    const key = KEY.exec(made.body)?.[1];
    assert.match(key ?? '', /^pt_live_/);
    const account = await client(t, key ?? '').get('/account');
    assert.equal(account.status, 200);
    assert.equal(account.body.data.mode, 'live');
    assert.equal(account.body.data.apiKey.scopes, 'all');
  });

  test('an admin makes and revokes keys; a viewer sees the list only; a key of another workspace is not found', async () => {
    const owner = await consolePerson(t, 'owner');
    const admin = await consolePerson(t, 'admin', owner.workspace);
    const viewer = await consolePerson(t, 'viewer', owner.workspace);
    const made = await consolePost(t, admin, '/console/settings/keys', {
      access: 'chosen',
      scope_reports: 'read',
    });
    assert.equal(made.statusCode, 201);
    const seen = await consoleGet(t, viewer, '/console/settings/keys');
    assert.equal(seen.statusCode, 200);
    assert.match(mainOf(seen.body), /reports:read/);
    assert.doesNotMatch(mainOf(seen.body), /revoke/i);
    const id = /(key_\w+)<\/span>/.exec(mainOf(seen.body))?.[1];
    assert.ok(id);
    assert.equal((await consoleGet(t, viewer, `/console/settings/keys/${id}/revoke`)).statusCode, 403);

    const stranger = await consolePerson(t, 'owner');
    assert.equal((await consoleGet(t, stranger, `/console/settings/keys/${id}/revoke`)).statusCode, 404);
    assert.equal((await consolePost(t, stranger, `/console/settings/keys/${id}/revoke`, {})).statusCode, 404);
    const revoked = await consolePost(t, admin, `/console/settings/keys/${id}/revoke`, {});
    assert.equal(revoked.statusCode, 303);
  });
});
