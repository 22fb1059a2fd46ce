import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { consoleGet, consolePerson } from '../helpers/console.js';
import { newCustomer, newKey } from '../helpers/factories.js';

// The console's audit page shows the API's audit trail to owners, admins and viewers, with who, what and why.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

describe('console audit page', () => {
  test('an owner sees each change with its actor and what changed; filters narrow it', async () => {
    const owner = await consolePerson(t, 'owner');
    const key = await newKey(t, owner.workspaceId);
    const customer = await newCustomer(key.api, { name: 'Kofi Mensah' });
    await key.api.patch(`/customers/${customer.id}`, { name: 'Kofi A. Mensah' });
    const other = await newCustomer(key.api, { name: 'Other One' });

    const page = await consoleGet(t, owner, '/console/audit');
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /customers\.update/);
    assert.match(page.body, /Kofi Mensah → Kofi A\. Mensah/);
    assert.match(page.body, new RegExp(key.id));
    assert.match(page.body, /API key/);
    assert.match(page.body, new RegExp(`href="/console/customers/${customer.id}"`));

    const one = await consoleGet(t, owner, `/console/audit?record_id=${customer.id}`);
    assert.doesNotMatch(one.body, new RegExp(other.id));
    assert.match(one.body, new RegExp(customer.id));
  });

  test('a bad date is a field error; a viewer sees the page; a collector does not', async () => {
    const owner = await consolePerson(t, 'owner');
    const bad = await consoleGet(t, owner, '/console/audit?from=yesterday');
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /must be a date/);
    const viewer = await consolePerson(t, 'viewer', owner.workspace);
    assert.equal((await consoleGet(t, viewer, '/console/audit')).statusCode, 200);
    const collector = await consolePerson(t, 'collector', owner.workspace);
    const refused = await consoleGet(t, collector, '/console/audit');
    assert.equal(refused.statusCode, 403);
    assert.doesNotMatch(refused.body, /Audit trail<\/a>/);
  });
});
