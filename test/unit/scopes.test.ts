import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ALL_SCOPES,
  allows,
  isScope,
  parseGrant,
  requiredScope,
  type Scope,
} from '../../src/modules/api-keys/scopes.js';

describe('requiredScope', () => {
  test('follows the first path segment; GET reads, every other method writes', () => {
    const cases: [string, string, Scope | null][] = [
      ['/api/v1/customers', 'GET', 'customers:read'],
      ['/api/v1/customers', 'POST', 'customers:write'],
      ['/api/v1/customers/:id', 'PATCH', 'customers:write'],
      ['/api/v1/customers/:id', 'DELETE', 'customers:write'],
      ['/api/v1/customers/:id/ledger', 'GET', 'customers:read'],
      ['/api/v1/tracks/:id/payments', 'GET', 'tracks:read'],
      ['/api/v1/tracks/:id/ledger', 'GET', 'tracks:read'],
      ['/api/v1/tracks/:id/pay-links', 'POST', 'tracks:write'],
      ['/api/v1/pay-links/:id', 'GET', 'tracks:read'],
      ['/api/v1/pay-links/:id', 'DELETE', 'tracks:write'],
      ['/api/v1/payments', 'POST', 'payments:write'],
      ['/api/v1/ledger', 'GET', 'ledger:read'],
      ['/api/v1/webhooks/:id/test', 'POST', 'webhooks:write'],
      ['/api/v1/events', 'GET', 'events:read'],
      ['/api/v1/events/:id/resend', 'POST', 'events:write'],
      ['/api/v1/reminders/send', 'POST', 'reminders:write'],
      ['/api/v1/reports/summary', 'GET', 'reports:read'],
      ['/api/v1/collection-schedules', 'GET', 'schedules:read'],
      ['/api/v1/collection-schedules/:id', 'PATCH', 'schedules:write'],
      ['/api/v1/payment-mandates/:id/revoke', 'POST', 'mandates:write'],
      ['/api/v1/collection-attempts/:id', 'GET', 'attempts:read'],
      ['/api/v1/account/usage', 'GET', 'account:read'],
      ['/api/v1/account', 'HEAD', 'account:read'],
    ];
    for (const [path, method, scope] of cases)
      assert.equal(requiredScope(path, method), scope, `${method} ${path}`);
  });

  test('paths without a scoped resource need none', () => {
    assert.equal(requiredScope('/api/v1/openapi.json', 'GET'), null);
    assert.equal(requiredScope('/health', 'GET'), null);
    assert.equal(requiredScope('', 'GET'), null);
  });
});

describe('allows', () => {
  test('write implies read, never the other way round', () => {
    const grant = parseGrant('tracks:write,payments:read');
    assert.equal(allows(grant, 'tracks:write'), true);
    assert.equal(allows(grant, 'tracks:read'), true);
    assert.equal(allows(grant, 'payments:read'), true);
    assert.equal(allows(grant, 'payments:write'), false);
    assert.equal(allows(grant, 'customers:read'), false);
  });

  test('an all-scopes key may do everything', () => {
    const grant = parseGrant('*');
    assert.equal(grant, 'all');
    for (const scope of ALL_SCOPES) assert.equal(allows(grant, scope), true);
  });
});

describe('scope names', () => {
  test('every resource has read and write', () => {
    assert.equal(ALL_SCOPES.length, 24);
    assert.ok(isScope('schedules:write'));
    assert.ok(isScope('events:read'));
    assert.ok(isScope('account:read'));
    assert.equal(isScope('collection-schedules:read'), false);
    assert.equal(isScope('tracks:admin'), false);
  });

  test('unknown stored scopes grant nothing', () => {
    const grant = parseGrant('tracks:read,bogus:read,');
    assert.notEqual(grant, 'all');
    assert.deepEqual([...(grant as ReadonlySet<Scope>)], ['tracks:read']);
  });
});
