import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { type Kysely, type Migration, Migrator } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.js';
import { freshDatabase } from '../helpers/app.js';

// Migration 0029 gives the payments already recorded their receipts: numbered per workspace and mode in the order
// they were recorded, with no gap, a code each, and the counter where the next payment goes on from.

const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);

async function migrationsBefore(name: string, dialect: string): Promise<Record<string, Migration>> {
  const files = fs
    .readdirSync(MIGRATIONS)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.ts$/.test(file) && file < name)
    .sort();
  const entries = await Promise.all(
    files.map(async (file) => {
      const module = await import(new URL(file, MIGRATIONS).href);
      return [file.slice(0, -3), { up: (db: Kysely<any>) => module.up(db, dialect) }] as const;
    }),
  );
  return Object.fromEntries(entries);
}

describe('migration 0029', () => {
  test('payments already recorded are numbered per workspace and mode, oldest first; split parts have none', async () => {
    const database = await freshDatabase();
    const handle = database.open();
    try {
      const { db, dialect } = handle;
      const { error } = await new Migrator({
        db,
        provider: { getMigrations: () => migrationsBefore('0029', dialect) },
        ...(database.schema ? { migrationTableSchema: database.schema } : {}),
      }).migrateToLatest();
      if (error) throw error;

      const at = (minute: number) => `2028-01-20T12:${String(minute).padStart(2, '0')}:00.000Z`;
      const payment = (id: string, workspace: string, mode: string, minute: number, extra = {}) => ({
        id,
        workspace_id: workspace,
        mode,
        track_id: null,
        customer_id: null,
        amount: 100,
        currency: 'NGN',
        method: 'cash',
        status: 'recorded',
        paid_at: at(minute),
        reference: null,
        reference_key: null,
        source: 'provider',
        metadata: '{}',
        created_at: at(minute),
        reversed_at: null,
        reversal_reason: null,
        allocations: '[]',
        unapplied_reason: 'unknown_reference',
        split_from: null,
        split_into: null,
        provider: null,
        provider_reference: null,
        refund_status: null,
        refund_provider_reference: null,
        refund_failure_reason: null,
        ...extra,
      });
      const rows = [
        payment('pay_b', 'ws_1', 'test', 2),
        payment('pay_a', 'ws_1', 'test', 1),
        payment('pay_c', 'ws_1', 'test', 3, { status: 'split', split_into: '["pay_c1","pay_c2"]' }),
        payment('pay_c1', 'ws_1', 'test', 4, { split_from: 'pay_c' }),
        payment('pay_c2', 'ws_1', 'test', 4, { split_from: 'pay_c' }),
        payment('pay_d', 'ws_1', 'test', 5, { status: 'reversed', reversed_at: at(6) }),
        payment('pay_e', 'ws_1', 'test', 5, { split_from: 'pay_d' }),
        payment('pay_l', 'ws_1', 'live', 7),
        payment('pay_x', 'ws_2', 'test', 8),
      ];
      for (const id of ['ws_1', 'ws_2']) {
        await (db as Kysely<any>)
          .insertInto('workspaces')
          .values({
            id,
            name: 'Shop',
            default_currency: 'NGN',
            timezone: 'UTC',
            subscription_plan: 'free',
            created_at: at(0),
            updated_at: at(0),
          })
          .execute();
      }
      for (const row of rows) await (db as Kysely<any>).insertInto('payments').values(row).execute();

      assert.ok((await migrateToLatest(db, dialect)).includes('0029_receipts'));
      const numbered = await (db as Kysely<any>)
        .selectFrom('payments')
        .select(['id', 'receipt_number', 'receipt_code'])
        .orderBy('id')
        .execute();
      const byId = Object.fromEntries(
        numbered.map((r) => [r.id, r.receipt_number === null ? null : Number(r.receipt_number)]),
      );
      assert.deepEqual(byId, {
        pay_a: 1,
        pay_b: 2,
        pay_c: 3,
        pay_c1: null,
        pay_c2: null,
        pay_d: 4,
        // An overpayment's excess, split from a payment still standing, is money of its own.
        pay_e: 5,
        pay_l: 1,
        pay_x: 1,
      });
      const codes = numbered.flatMap((r) => (r.receipt_code ? [r.receipt_code as string] : []));
      assert.equal(new Set(codes).size, 7);
      for (const code of codes) assert.match(code, /^[0-9A-F]{12}$/);
      const counters = await (db as Kysely<any>)
        .selectFrom('receipt_counters')
        .select(['workspace_id', 'mode', 'last_number'])
        .orderBy('workspace_id')
        .orderBy('mode')
        .execute();
      assert.deepEqual(
        counters.map((c) => [c.workspace_id, c.mode, Number(c.last_number)]),
        [
          ['ws_1', 'live', 1],
          ['ws_1', 'test', 5],
          ['ws_2', 'test', 1],
        ],
      );
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
