import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addPerson } from '../../src/modules/people/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { consoleGet, consolePerson, consolePost, PASSWORD } from '../helpers/console.js';
import { newWorkspace } from '../helpers/factories.js';

// A person of several workspaces switches between them and between test and live data; the bar says which;
// a workspace they do not belong to stays closed; sign-in is limited per address as well as per account.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

describe('console workspaces, modes and limits', () => {
  test('a person switches workspace and mode; test mode is marked; another workspace stays closed', async () => {
    const owner = await consolePerson(t, 'owner');
    const second = await newWorkspace(t);
    await addPerson(t.ctx.db, t.clock, {
      workspaceId: second.workspaceId,
      email: owner.email,
      role: 'viewer',
    });
    const stranger = await newWorkspace(t);

    const first = await consoleGet(t, owner, '/console');
    assert.match(first.body, /Test mode: you are looking at test data/);
    assert.match(first.body, /View live data/);
    assert.match(first.body, /<select id="switch-workspace"/, 'two workspaces: a switch');

    const live = await consolePost(t, owner, '/console/switch', {
      workspace_id: owner.workspaceId,
      mode: 'live',
    });
    assert.equal(live.statusCode, 303);
    const inLive = await consoleGet(t, owner, '/console');
    assert.doesNotMatch(inLive.body, /Test mode: you are looking at test data/);
    assert.match(inLive.body, /View test data/);

    const moved = await consolePost(t, owner, '/console/switch', {
      workspace_id: second.workspaceId,
      mode: 'test',
    });
    assert.equal(moved.statusCode, 303);
    const there = await consoleGet(t, owner, '/console');
    assert.match(there.body, /· viewer</, 'the role of the workspace switched to');

    const refused = await consolePost(t, owner, '/console/switch', {
      workspace_id: stranger.workspaceId,
      mode: 'test',
    });
    assert.equal(refused.statusCode, 403);
    assert.match((await consoleGet(t, owner, '/console')).body, /· viewer</, 'nothing moved');
  });

  test('without the form token or from another site, a switch is refused', async () => {
    const owner = await consolePerson(t, 'owner');
    const forged = await consolePost(t, owner, '/console/switch', {
      workspace_id: owner.workspaceId,
      mode: 'live',
      form_token: 'guess',
    });
    assert.equal(forged.statusCode, 403);
    const crossSite = await consolePost(
      t,
      owner,
      '/console/switch',
      { workspace_id: owner.workspaceId, mode: 'live' },
      { 'sec-fetch-site': 'cross-site' },
    );
    assert.equal(crossSite.statusCode, 403);
    assert.match((await consoleGet(t, owner, '/console')).body, /Test mode/);
  });

  test('sign-in is limited per address: past 30 tries a minute the address waits, whatever the account', async () => {
    const owner = await consolePerson(t, 'owner');
    const address = '198.51.100.7';
    const tryOnce = (email: string, password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/console/sign-in',
        remoteAddress: address,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ email, password }).toString(),
      });
    for (let i = 0; i < 30; i++) {
      const answer = await tryOnce(`nobody-${i}@example.com`, 'wrong password');
      assert.equal(answer.statusCode, 401);
    }
    const limited = await tryOnce(owner.email, PASSWORD);
    assert.equal(limited.statusCode, 429, 'the right password too waits');
    assert.equal(limited.headers['set-cookie'], undefined);
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      remoteAddress: '198.51.100.8',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email: owner.email, password: PASSWORD }).toString(),
    });
    assert.equal(elsewhere.statusCode, 303, 'another address signs in');
  });
});
