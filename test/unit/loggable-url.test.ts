import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loggableUrl } from '../../src/http/server-options.js';

test('log lines never carry a consent token or a secret-looking parameter', () => {
  assert.equal(
    loggableUrl('/consent/ct_Zk3q9T1m4X8v2B6n0R5c7W1y3P9s2L4dAbCdEfGhIjK'),
    '/consent/ct_[redacted]',
  );
  assert.equal(
    loggableUrl('/consent/ct_Zk3q9T1m4X8v2B6n0R5c7W1y3P9s2L4d?token=abc&x=1'),
    '/consent/ct_[redacted]?token=[redacted]&x=1',
  );
  assert.equal(
    loggableUrl('/api/v1/tracks/trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C'),
    '/api/v1/tracks/trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
  );
});
