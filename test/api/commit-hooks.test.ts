import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { Trx } from '../../src/db/schema.js';
import { type CommitHook, inTransaction, withCommitHook } from '../../src/db/unit-of-work.js';
import { freshDatabase, type TestDatabase } from '../helpers/app.js';

let database: TestDatabase;
let handle: DatabaseHandle;
before(async () => {
  database = await freshDatabase();
  handle = database.open();
  await sql`create table hook_marks (id text primary key, body text)`.execute(handle.db);
});
after(async () => {
  await handle.close();
  await database.drop();
});

const ctx = () => ({ db: handle.db, dialect: handle.dialect });
const marks = async () =>
  (await sql<{ id: string; body: string }>`select id, body from hook_marks order by id`.execute(handle.db))
    .rows;

/** A hook that writes, in the unit it runs in, the unit's result under its own name. */
function marking(name: string): CommitHook & { results: unknown[] } {
  const results: unknown[] = [];
  return {
    results,
    runsBeforeFinal: true,
    async beforeCommit(trx: Trx, result: unknown) {
      results.push(result);
      await sql`insert into hook_marks values (${name}, ${String(result)})`.execute(trx);
    },
  };
}

test("a unit of work opened for a request's owner runs its hooks with its result; other units do not", async () => {
  const owner = { workspaceId: 'ws_a', mode: 'test' };
  const hook = marking('a-hook');
  await withCommitHook(owner, hook, async () => {
    // Background work a request runs first: no owner, or another tenant object, so not the request's unit.
    await inTransaction(ctx(), null, async () => 'background');
    await inTransaction(ctx(), { ...owner }, async () => 'other tenant');
    return inTransaction(ctx(), owner, async () => 'the change');
  });
  assert.deepEqual(hook.results, ['the change']);
  assert.deepEqual(await marks(), [{ id: 'a-hook', body: 'the change' }]);
  // Once the request is done its hooks are gone: a later unit for the same object runs none.
  await inTransaction(ctx(), owner, async () => 'later');
  assert.deepEqual(hook.results, ['the change']);
});

test('requests at once, each with its own owner, each get only their own hooks', async () => {
  const owners = Array.from({ length: 8 }, (_, i) => ({ workspaceId: `ws_${i}`, mode: 'test' }));
  const hooks = owners.map((_, i) => marking(`b-${i}`));
  await Promise.all(
    owners.map((owner, i) =>
      withCommitHook(owner, hooks[i] as CommitHook, async () => {
        await new Promise((resolve) => setTimeout(resolve, (i * 7) % 5));
        return inTransaction(ctx(), owner, async () => `change ${i}`);
      }),
    ),
  );
  assert.deepEqual(
    hooks.map((hook) => hook.results),
    owners.map((_, i) => [`change ${i}`]),
  );
});

test('a rolled back unit writes nothing of its hooks; two hooks of one request run in the order they were added', async () => {
  const owner = { workspaceId: 'ws_c', mode: 'test' };
  const first = marking('c-1');
  const second = marking('c-2');
  await assert.rejects(
    withCommitHook(owner, first, () =>
      withCommitHook(owner, second, () =>
        inTransaction(ctx(), owner, async (trx) => {
          await sql`insert into hook_marks values (${'c-0'}, ${'x'})`.execute(trx);
          throw new Error('refused');
        }),
      ),
    ),
    /refused/,
  );
  assert.deepEqual(
    (await marks()).filter(({ id }) => id.startsWith('c-')),
    [],
  );
  const result = await withCommitHook(owner, first, () =>
    withCommitHook(owner, second, () => inTransaction(ctx(), owner, async () => 'kept')),
  );
  assert.equal(result, 'kept');
  assert.deepEqual(
    (await marks()).filter(({ id }) => id.startsWith('c-')),
    [
      { id: 'c-1', body: 'kept' },
      { id: 'c-2', body: 'kept' },
    ],
  );
});
