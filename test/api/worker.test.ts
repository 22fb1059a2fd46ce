import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from 'typebox';
import type { AppContext } from '../../src/context.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { type AnyJob, defineJob } from '../../src/jobs/job.js';
import { enqueue } from '../../src/jobs/queue.js';
import type { SweepDefinition } from '../../src/jobs/sweeps.js';
import { Worker } from '../../src/jobs/worker.js';
import { systemClock } from '../../src/lib/clock.js';
import { ENDPOINT_CONCURRENCY } from '../../src/modules/webhooks/webhooks.job.js';
import { relayEvents } from '../../src/outbox/relay.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newCustomer, newWorkspace } from '../helpers/factories.js';
import { receiverSet } from '../helpers/receiver.js';

describe('background worker', () => {
  let t: TestApp;
  const receivers = receiverSet();
  const others: DatabaseHandle[] = [];
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await receivers.closeAll();
    await Promise.all(others.map((o) => o.close()));
    await t.close();
  });

  const receiver = () => receivers.start();

  /**
   * The context a second worker would have on another node: its own pool on PostgreSQL. SQLite serves one
   * process through one connection (a second one in the same thread would wait on itself), so there the
   * two workers interleave on it.
   */
  function secondNode(ctx: AppContext = t.ctx): AppContext {
    if (t.handle.dialect !== 'postgres') return ctx;
    const other = t.database.open();
    others.push(other);
    return { ...ctx, db: other.db };
  }

  function withJobs(jobs: AnyJob[]): AppContext {
    const all = new Map([...t.ctx.registry.jobs, ...jobs.map((job): [string, AnyJob] => [job.name, job])]);
    return { ...t.ctx, registry: { ...t.ctx.registry, jobs: all } };
  }

  async function jobsLeft(): Promise<{ name: string; status: string }[]> {
    return t.ctx.db
      .selectFrom('jobs')
      .select(['name', 'status'])
      .where('name', 'not like', 'sweeps.%')
      .execute();
  }

  test('two workers on their own connections run every job once between them', async () => {
    const { api } = await newWorkspace(t);
    const r = await receiver();
    assert.equal((await api.post('/webhooks', { url: r.url })).status, 201);
    const customers = [];
    for (let i = 0; i < 25; i++) customers.push(await newCustomer(api));

    const first = new Worker(t.ctx, t.app.log, { concurrency: 5 });
    const second = new Worker(secondNode(), t.app.log, { concurrency: 5 });
    await Promise.all([first.drain(), second.drain()]);
    await Promise.all([first.drain(), second.drain()]);

    const delivered = r.requests.map((req) => JSON.parse(req.body).data.object.id as string);
    assert.equal(delivered.length, customers.length, 'one delivery per event, none twice');
    assert.deepEqual(new Set(delivered), new Set(customers.map((c) => c.id)));
    assert.deepEqual(await jobsLeft(), []);
  });

  test('a slow and a fast job outliving their lease each run once: the lease is renewed, each completes alone', async () => {
    const runs: string[] = [];
    const slow = defineJob({
      name: 'test.slow',
      payload: Type.Object({ label: Type.String() }),
      maxAttempts: 3,
      backoffMs: () => 0,
      async run(_ctx, { label }) {
        runs.push(label);
        await sleep(label === 'slow' ? 2_500 : 5);
        return undefined;
      },
    });
    const ctx = withJobs([slow]);
    await enqueue(ctx.db, systemClock, slow, { label: 'slow' });
    await enqueue(ctx.db, systemClock, slow, { label: 'fast' });

    // A lease of 600 ms on real time: without renewal the slow job's would run out four times over, and a
    // batch completed after its slowest job would let the fast one's run out too. (A shorter lease made the
    // test fail on a loaded machine: a renewal 150 ms late is a pause of the test process, not a bug.)
    const options = { leaseMs: 600, pollMs: 10, clock: systemClock };
    const a = new Worker(ctx, t.app.log, options);
    const b = new Worker(secondNode(ctx), t.app.log, options);
    a.start();
    b.start();
    const deadline = Date.now() + 10_000;
    while ((await jobsLeft()).length > 0 && Date.now() < deadline) await sleep(20);
    await sleep(1_300); // past two more leases: a job run twice would show now
    await Promise.all([a.stop(), b.stop()]);

    assert.deepEqual([...runs].sort(), ['fast', 'slow']);
    assert.deepEqual(await jobsLeft(), []);
  });

  test("a dead worker's job is taken over after its lease, and its cut-off attempt is logged as unknown", async () => {
    const { api } = await newWorkspace(t);
    const r = await receiver();
    const endpoint = await api.post('/webhooks', { url: r.url, eventTypes: ['customer.created'] });
    assert.equal(endpoint.status, 201);
    const customer = await newCustomer(api);
    await relayEvents(t.ctx);
    // Claimed by a worker that then vanished mid-attempt: running, its lease still valid for a minute.
    const claimed = await t.ctx.db
      .updateTable('jobs')
      .set({
        status: 'running',
        attempts: 1,
        locked_by: 'dead-node:1#1',
        locked_until: new Date(t.clock.now().getTime() + 60_000).toISOString(),
      })
      .where('name', '=', 'webhooks.deliver')
      .where('status', '=', 'pending')
      .executeTakeFirst();
    assert.equal(Number(claimed.numUpdatedRows), 1);

    assert.equal(await t.worker.drain(), 0, 'a job under a live lease is not run twice');
    assert.equal(r.requests.length, 0);
    t.clock.advance(61_000);
    // Sweeps scheduled by the workers of the tests above may fall due too; the delivery is what is checked.
    assert.ok((await t.worker.drain()) >= 1);
    assert.deepEqual(
      r.requests.map((req) => JSON.parse(req.body).data.object.id),
      [customer.id],
    );

    const log = await api.get(`/webhooks/${endpoint.body.data.id}/deliveries`);
    assert.deepEqual(
      log.body.data.items.map((d: { attemptNumber: number; status: string }) => [d.attemptNumber, d.status]),
      [
        [2, 'succeeded'],
        [1, 'failed'],
      ],
    );
    assert.match(log.body.data.items[1].error, /outcome unknown/);
    assert.deepEqual(await jobsLeft(), []);
  });

  test('a job that lost its lease is stopped and its outcome is not recorded over the new holder', async () => {
    let aborted = false;
    const runs: number[] = [];
    const long = defineJob({
      name: 'test.long',
      payload: Type.Object({}),
      maxAttempts: 5,
      backoffMs: () => 0,
      async run(ctx) {
        runs.push(runs.length + 1);
        if (runs.length > 1) return undefined;
        await new Promise<void>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve();
          });
        });
        return { error: 'cut off' };
      },
    });
    const ctx = withJobs([long]);
    await enqueue(ctx.db, systemClock, long, {});
    const a = new Worker(ctx, t.app.log, { leaseMs: 90, pollMs: 10, clock: systemClock });
    a.start();
    while (runs.length === 0) await sleep(5);
    // Another node took the job over meanwhile (as after a network partition): the lease is no longer a's.
    const theirs = { locked_by: 'other-node:1#1', locked_until: new Date(Date.now() + 60_000).toISOString() };
    await ctx.db.updateTable('jobs').set(theirs).where('name', '=', 'test.long').execute();
    const deadline = Date.now() + 5_000;
    while (!aborted && Date.now() < deadline) await sleep(10);
    await a.stop();
    assert.equal(aborted, true);
    assert.deepEqual(runs, [1]);
    const [row] = await ctx.db.selectFrom('jobs').selectAll().where('name', '=', 'test.long').execute();
    assert.equal(row?.status, 'running', 'still held by the other node');
    assert.equal(row?.locked_by, 'other-node:1#1');
    assert.equal(row?.last_error, null);
    await ctx.db.deleteFrom('jobs').where('name', '=', 'test.long').execute();
  });

  test('jobs of one group never run more than its concurrency at once; other groups go on', async () => {
    let inGroup = 0;
    let most = 0;
    const others: string[] = [];
    const grouped = defineJob({
      name: 'test.grouped',
      payload: Type.Object({ group: Type.String(), n: Type.Integer() }),
      maxAttempts: 1,
      backoffMs: () => 0,
      group: ({ group }) => group,
      groupConcurrency: 2,
      async run(_ctx, { group, n }) {
        if (group !== 'busy') {
          others.push(`${group}:${n}`);
          return undefined;
        }
        inGroup += 1;
        most = Math.max(most, inGroup);
        await sleep(30);
        inGroup -= 1;
        return undefined;
      },
    });
    const ctx = withJobs([grouped]);
    for (let n = 0; n < 12; n++) await enqueue(ctx.db, ctx.clock, grouped, { group: 'busy', n });
    await enqueue(ctx.db, ctx.clock, grouped, { group: 'quiet', n: 0 });
    const worker = new Worker(ctx, t.app.log, { concurrency: 16 });
    await worker.drain(1);
    assert.deepEqual(others, ['quiet:0'], 'the quiet group ran in the first round, behind 12 older jobs');
    await worker.drain();
    assert.equal(most, 2);
    assert.deepEqual(await jobsLeft(), []);
  });

  test('a due job is claimed while the relay is still in its batch of events, not after it', async () => {
    const order: string[] = [];
    let ran: () => void = () => {};
    const jobRan = new Promise<void>((resolve) => {
      ran = resolve;
    });
    const quick = defineJob({
      name: 'test.during-relay',
      payload: Type.Object({}),
      maxAttempts: 1,
      backoffMs: () => 0,
      async run() {
        order.push('job ran');
        ran();
        return undefined;
      },
    });
    // A relay that takes long: until the job has run, or 500 ms on SQLite, where one connection serves the
    // thread and the relay's transaction holds it.
    const slowRelay = {
      name: 'test.slow-relay',
      async handle() {
        await Promise.race([jobRan, sleep(t.handle.dialect === 'postgres' ? 20_000 : 500)]);
        order.push('relay done');
      },
    };
    const base = withJobs([quick]);
    const ctx = { ...base, registry: { ...base.registry, subscribers: [slowRelay] } };
    const { api } = await newWorkspace(t);
    await newCustomer(api); // an event for the relay
    await enqueue(ctx.db, systemClock, quick, {});

    // Polling once a minute: only a claim that does not wait for the relay runs the job in time.
    const worker = new Worker(ctx, t.app.log, { pollMs: 60_000, clock: systemClock });
    worker.start();
    try {
      const deadline = Date.now() + 15_000;
      while (!order.includes('job ran') && Date.now() < deadline) await sleep(10);
    } finally {
      await worker.stop();
    }
    const expected = t.handle.dialect === 'postgres' ? ['job ran', 'relay done'] : ['relay done', 'job ran'];
    assert.deepEqual(order, expected);
  });

  test('a job this version does not know is left pending for a worker that knows it', async () => {
    const later = defineJob({
      name: 'test.from-a-newer-version',
      payload: Type.Object({}),
      maxAttempts: 1,
      backoffMs: () => 0,
      async run() {
        return undefined;
      },
    });
    await enqueue(t.ctx.db, t.ctx.clock, later, {});
    assert.equal(await t.worker.drain(), 0);
    const [row] = await t.ctx.db.selectFrom('jobs').selectAll().where('name', '=', later.name).execute();
    assert.equal(row?.status, 'pending');
    assert.equal(row?.attempts, 0);
    assert.equal(await new Worker(withJobs([later]), t.app.log).drain(), 1);
    assert.deepEqual(await jobsLeft(), []);
  });

  test('a sweep runs as one recurring job across workers, on every tenant clock', async () => {
    const moved = await newWorkspace(t);
    assert.equal((await moved.api.post('/account/test-clock/advance', { days: 2 })).status, 200);
    const seen: { mode: string; workspaceId?: string; except?: readonly string[]; now: string }[][] = [];
    let active = 0;
    let overlapped = false;
    const sweep: SweepDefinition = {
      name: 'test.sweep',
      everyMs: 60_000,
      async run(_ctx, scope) {
        active += 1;
        overlapped ||= active > 1;
        if (!scope.workspaceId && scope.mode === 'live') seen.push([]);
        seen.at(-1)?.push({
          mode: scope.mode,
          ...(scope.workspaceId ? { workspaceId: scope.workspaceId } : {}),
          ...(scope.exceptWorkspaceIds ? { except: scope.exceptWorkspaceIds } : {}),
          now: scope.now.toISOString(),
        });
        await sleep(5);
        active -= 1;
        return 0;
      },
    };
    const ctx: AppContext = { ...t.ctx, registry: { ...t.ctx.registry, sweeps: [sweep] } };
    const a = new Worker(ctx, t.app.log, { pollMs: 10 });
    const b = new Worker(secondNode(ctx), t.app.log, { pollMs: 10 });
    a.start();
    b.start();
    try {
      const waitFor = async (runs: number) => {
        const deadline = Date.now() + 5_000;
        while (seen.length < runs && Date.now() < deadline) await sleep(10);
        await sleep(100);
      };
      await waitFor(1);
      assert.equal(seen.length, 1, 'one run between the two workers, and not again before it is due');
      const now = t.clock.now().getTime();
      const [first] = seen;
      assert.deepEqual(first?.[0], { mode: 'live', now: new Date(now).toISOString() });
      assert.equal(first?.[1]?.mode, 'test');
      assert.ok(
        first?.[1]?.except?.includes(moved.workspaceId),
        'the moved clock is not in the shared scope',
      );
      assert.deepEqual(
        first?.find((scope) => scope.workspaceId === moved.workspaceId),
        { mode: 'test', workspaceId: moved.workspaceId, now: new Date(now + 2 * 86_400_000).toISOString() },
      );

      t.clock.advance(60_000);
      a.wake();
      b.wake();
      await waitFor(2);
      assert.equal(seen.length, 2);
      assert.equal(overlapped, false);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await t.ctx.db.deleteFrom('jobs').where('dedupe_key', '=', 'sweep:test.sweep').execute();
    }
  });

  test('a job that does its work in shares runs again at the time it asks, its failed attempts counted per share', async () => {
    const shares: number[] = [];
    let failOnce = true;
    const inShares = defineJob({
      name: 'test.shares',
      payload: Type.Object({ of: Type.Integer() }),
      maxAttempts: 2,
      backoffMs: () => 0,
      async run(ctx, { of }, job) {
        if (shares.length === 1 && failOnce) {
          failOnce = false;
          throw new Error('one share failed');
        }
        shares.push(job.attempt);
        return shares.length < of ? { rerunAt: ctx.clock.now() } : undefined;
      },
    });
    const ctx = withJobs([inShares]);
    await enqueue(ctx.db, ctx.clock, inShares, { of: 4 });
    await new Worker(ctx, t.app.log).drain();
    // Attempts count from 1 again after each share: the failure is the second share's first attempt.
    assert.deepEqual(shares, [1, 2, 1, 1]);
    assert.deepEqual(
      await ctx.db.selectFrom('jobs').select('id').where('name', '=', 'test.shares').execute(),
      [],
    );
  });

  test('a job that keeps failing is kept as failed, with its last error', async () => {
    const failing = defineJob({
      name: 'test.failing',
      payload: Type.Object({}),
      maxAttempts: 2,
      backoffMs: () => 1_000,
      async run() {
        throw new Error('the far side is down');
      },
    });
    const ctx = withJobs([failing]);
    await enqueue(ctx.db, ctx.clock, failing, {});
    const worker = new Worker(ctx, t.app.log);
    await worker.drain();
    let [row] = await ctx.db.selectFrom('jobs').selectAll().where('name', '=', 'test.failing').execute();
    assert.equal(row?.status, 'pending');
    assert.equal(row?.attempts, 1);
    t.clock.advance(1_000);
    await worker.drain();
    [row] = await ctx.db.selectFrom('jobs').selectAll().where('name', '=', 'test.failing').execute();
    assert.equal(row?.status, 'failed');
    assert.equal(row?.attempts, 2);
    assert.equal(row?.last_error, 'the far side is down');
    await ctx.db.deleteFrom('jobs').where('name', '=', 'test.failing').execute();
  });
});

describe('webhook fairness', () => {
  let t: TestApp;
  const receivers = receiverSet();
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await receivers.closeAll();
    await t.close();
  });

  test("an endpoint that never answers does not hold back another workspace's delivery", async () => {
    const stuck = await receivers.start([], { hang: true });
    const healthy = await receivers.start();
    const slowTenant = await newWorkspace(t);
    const other = await newWorkspace(t);
    assert.equal((await slowTenant.api.post('/webhooks', { url: stuck.url })).status, 201);
    const endpoint = await other.api.post('/webhooks', { url: healthy.url });
    assert.equal(endpoint.status, 201);
    for (let i = 0; i < ENDPOINT_CONCURRENCY + 20; i++) await newCustomer(slowTenant.api);

    const worker = new Worker(t.ctx, t.app.log, { pollMs: 20 });
    worker.start();
    try {
      const hungDeadline = Date.now() + 5_000;
      while (stuck.requests.length < ENDPOINT_CONCURRENCY && Date.now() < hungDeadline) await sleep(10);
      await sleep(50);
      assert.equal(
        stuck.requests.length,
        ENDPOINT_CONCURRENCY,
        'the stuck endpoint holds its slots, no more',
      );

      const sent = performance.now();
      assert.equal((await other.api.post(`/webhooks/${endpoint.body.data.id}/test`)).status, 202);
      const deadline = Date.now() + 5_000;
      while (healthy.requests.length === 0 && Date.now() < deadline) await sleep(5);
      const [delivered] = healthy.requests;
      assert.ok(delivered, 'the other workspace got its test event');
      const waitedMs = delivered.receivedAt - sent;
      assert.ok(waitedMs < 2_000, `delivered after ${Math.round(waitedMs)} ms`);
      assert.equal(
        stuck.requests.length,
        ENDPOINT_CONCURRENCY,
        'while the stuck endpoint still holds its first attempts',
      );
    } finally {
      await stuck.close();
      await worker.stop();
    }
  });
});
