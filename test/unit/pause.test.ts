import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Pause } from '../../src/jobs/pause.js';

const LONG_MS = 60_000;

test('a wake that comes while the loop is busy ends its next wait at once', async () => {
  const pause = new Pause();
  pause.wake();
  const started = performance.now();
  await pause.wait(LONG_MS);
  assert.ok(performance.now() - started < LONG_MS / 2);
});

test('a wake ends a wait in progress, and is used up by it', async () => {
  const pause = new Pause();
  const waiting = pause.wait(LONG_MS);
  pause.wake();
  await waiting;
  let ended = false;
  const next = pause.wait(20).then(() => {
    ended = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ended, false, 'the wake was used up by the wait it ended');
  await next;
});

test('a wait with no wake ends after its time', async () => {
  const pause = new Pause();
  const started = performance.now();
  await pause.wait(30);
  assert.ok(performance.now() - started >= 25);
});
