import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type Generated, type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { DbOrTrx } from '../../src/db/schema.js';
import { rowsOf, shaped } from '../../src/db/shaped-statements.js';
import { freshDatabase, type TestDatabase } from '../helpers/app.js';

interface ItemTable {
  id: string;
  name: string;
  note: Generated<string | null>;
  amount: Generated<number>;
  tags: Generated<string>;
}
type Item = Selectable<ItemTable>;
type ItemsDb = Kysely<{ shaped_items: ItemTable }>;
const items = (db: DbOrTrx) => db as unknown as ItemsDb;

let database: TestDatabase;
let handle: DatabaseHandle;
before(async () => {
  database = await freshDatabase();
  handle = database.open();
  await sql`create table shaped_items (id text primary key, name text not null, note text default 'none',
    amount integer not null default 0, tags text not null default '[]')`.execute(handle.db);
});
after(async () => {
  await handle.close();
  await database.drop();
});

const insertItem = shaped((db, row: Insertable<ItemTable>) =>
  items(db).insertInto('shaped_items').values(row),
);
const itemsNamed = shaped((db, names: readonly string[], newestFirst: boolean) =>
  items(db)
    .selectFrom('shaped_items')
    .selectAll()
    .where('name', 'in', names)
    .orderBy('id', newestFirst ? 'desc' : 'asc'),
);
const raise = shaped((db, id: string, by: number) =>
  items(db)
    .updateTable('shaped_items')
    .set({ amount: sql`amount + ${by}` })
    .where('id', '=', id)
    .returning('id'),
);

async function read(id: string): Promise<Item | undefined> {
  return items(handle.db).selectFrom('shaped_items').selectAll().where('id', '=', id).executeTakeFirst();
}

test('each call binds its own values to the text built once for its shape', async () => {
  let n = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.string({ maxLength: 12 }).filter((text) => !text.includes('\0')),
      fc.option(fc.string({ maxLength: 12 }).filter((text) => !text.includes('\0'))),
      fc.option(fc.integer({ min: -1_000_000, max: 1_000_000 }), { nil: undefined }),
      async (name, note, amount) => {
        n += 1;
        const id = `p${n}`;
        await rowsOf(
          handle.db,
          insertItem(handle.db, { id, name, note, ...(amount === undefined ? {} : { amount }) }),
        );
        const row = await read(id);
        assert.deepEqual(
          { name: row?.name, note: row?.note, amount: Number(row?.amount) },
          { name, note, amount: amount ?? 0 },
        );
      },
    ),
    { numRuns: 60 },
  );
});

test('an absent key takes its default, a null is written as null, whatever the shape used before', async () => {
  await rowsOf(handle.db, insertItem(handle.db, { id: 'd1', name: 'with note', note: 'kept' }));
  await rowsOf(handle.db, insertItem(handle.db, { id: 'd2', name: 'no note' }));
  await rowsOf(handle.db, insertItem(handle.db, { id: 'd3', name: 'null note', note: null }));
  assert.equal((await read('d1'))?.note, 'kept');
  assert.equal((await read('d2'))?.note, 'none');
  assert.equal((await read('d3'))?.note, null);
});

test('arrays of other lengths and booleans the build decides on make shapes of their own', async () => {
  for (const [id, name] of [
    ['s1', 'named x for shapes'],
    ['s2', 'named y for shapes'],
    ['s3', 'named z for shapes'],
  ] as const)
    await rowsOf(handle.db, insertItem(handle.db, { id, name }));
  const ids = async (names: string[], newestFirst: boolean) =>
    (await rowsOf(handle.db, itemsNamed(handle.db, names, newestFirst))).map((row) => row.id);
  assert.deepEqual(await ids(['named x for shapes'], false), ['s1']);
  assert.deepEqual(await ids(['named y for shapes'], false), ['s2']);
  assert.deepEqual(await ids(['named x for shapes', 'named z for shapes'], false), ['s1', 's3']);
  assert.deepEqual(await ids(['named x for shapes', 'named z for shapes'], true), ['s3', 's1']);
  assert.deepEqual(await ids(['named x for shapes', 'named y for shapes', 'named z for shapes'], true), [
    's3',
    's2',
    's1',
  ]);
});

test('a write returns the rows it changed, in a transaction as outside one', async () => {
  await rowsOf(handle.db, insertItem(handle.db, { id: 'u1', name: 'u', amount: 5 }));
  assert.equal((await rowsOf(handle.db, raise(handle.db, 'u1', 3))).length, 1);
  assert.equal((await rowsOf(handle.db, raise(handle.db, 'missing', 3))).length, 0);
  await handle.db.transaction().execute(async (trx) => {
    assert.equal((await rowsOf(trx, raise(trx, 'u1', -10))).length, 1);
  });
  assert.equal(Number((await read('u1'))?.amount), -2);
});

test('a build that makes text of a value throws instead of keeping one call’s text for all', () => {
  const readsText = shaped((db, name: string) =>
    items(db).selectFrom('shaped_items').selectAll().where('name', 'like', `${name}%`),
  );
  assert.throws(() => readsText(handle.db, 'a'), /read the value at 0/);
  const readsJson = shaped((db, id: string, tags: { list: string[] }) =>
    items(db)
      .insertInto('shaped_items')
      .values({ id, name: 'json', tags: JSON.stringify(tags) }),
  );
  assert.throws(() => readsJson(handle.db, 'j1', { list: ['a'] }), /read the value at 1\.list\.0/);
});

test('a statement that binds an object, or is given one, is built for every call', async () => {
  const bindsObject = shaped((db, id: string, when: { at: string }) =>
    items(db)
      .insertInto('shaped_items')
      .values({ id, name: 'object', note: sql<string>`${when}::text` as unknown as string }),
  );
  // pg turns a bound object into its JSON; SQLite cannot bind one. Either way the template is not reused.
  const first = bindsObject(handle.db, 'o1', { at: 'first' }).compile();
  const second = bindsObject(handle.db, 'o2', { at: 'second' }).compile();
  assert.deepEqual(second.parameters, ['o2', 'object', { at: 'second' }]);
  assert.notEqual(first.parameters[2], second.parameters[2]);

  const withDate = shaped((db, id: string, at: Date) =>
    items(db).insertInto('shaped_items').values({ id, name: 'date', note: at.toISOString() }),
  );
  await rowsOf(handle.db, withDate(handle.db, 't1', new Date('2026-01-01T00:00:00Z')));
  await rowsOf(handle.db, withDate(handle.db, 't2', new Date('2026-02-01T00:00:00Z')));
  assert.equal((await read('t2'))?.note, '2026-02-01T00:00:00.000Z');
});
