import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { checkBorders, importCircles, sourcesUnder } from '../../tools/check-borders.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

const TABLES = new Map([
  [
    'src/modules/schedules/schedules.table.ts',
    "declare module '../../db/schema.js' {\n  interface Database {\n    schedules: S;\n    obligations: O;\n  }\n}\n",
  ],
  [
    'src/modules/payments/payments.table.ts',
    "declare module '../../db/schema.js' {\n  interface Database {\n    payments: P;\n  }\n}\n",
  ],
  [
    'src/modules/reminders/reminders.table.ts',
    "declare module '../../db/schema.js' {\n  interface Database {\n    reminders: R;\n  }\n}\n",
  ],
]);

function rulesOf(files: Record<string, string>) {
  return checkBorders(new Map([...TABLES, ...Object.entries(files)])).map(
    (v) => `${v.file}:${v.line} ${v.rule}`,
  );
}

describe('module borders', () => {
  test("an import of another module's repository or table is refused, wherever it is written", () => {
    assert.deepEqual(
      rulesOf({
        'src/modules/reminders/reminders.facts.ts': [
          "import * as obligations from '../schedules/obligations.repository.js';",
          "import type { SchedulesTable } from '../schedules/schedules.table.js';",
          "export { findPayment } from '../payments/payments.repository.js';",
          "const lazy = () => import('../payments/payments.table.js');",
        ].join('\n'),
        'src/cli/bootstrap.ts': "import type { W } from '../modules/workspaces/workspaces.table.js';",
      }),
      [
        'src/cli/bootstrap.ts:1 private-import',
        'src/modules/reminders/reminders.facts.ts:1 private-import',
        'src/modules/reminders/reminders.facts.ts:2 private-import',
        'src/modules/reminders/reminders.facts.ts:3 private-import',
        'src/modules/reminders/reminders.facts.ts:4 private-import',
      ],
    );
  });

  test("a module's own files, its service and the money layer on the money modules are allowed", () => {
    assert.deepEqual(
      rulesOf({
        'src/modules/schedules/schedules.service.ts': "import * as repo from './obligations.repository.js';",
        'src/modules/reminders/reminders.facts.ts': "import { findObligation } from '../schedules/index.js';",
        'src/money/allocation.ts': [
          "import * as obligations from '../modules/schedules/obligations.repository.js';",
          "import type { PaymentsTable } from '../modules/payments/payments.table.js';",
          "await trx.updateTable('obligations').set({ amount_paid: 1 }).execute();",
        ].join('\n'),
      }),
      [],
    );
  });

  test('the money layer may not reach a module that moves no money', () => {
    assert.deepEqual(
      rulesOf({
        'src/money/payments.ts': [
          "import * as reminders from '../modules/reminders/reminders.repository.js';",
          "await trx.insertInto('reminders').values(row).execute();",
        ].join('\n'),
      }),
      ['src/money/payments.ts:1 private-import', 'src/money/payments.ts:2 foreign-write'],
    );
  });

  test("a write to another module's table, in Kysely or in raw SQL, is refused; reads are not", () => {
    assert.deepEqual(
      rulesOf({
        'src/modules/attempts/attempts.service.ts': [
          "const o = await trx.selectFrom('obligations').selectAll().execute();",
          "await trx.updateTable('obligations').set({ status: 'paid' }).execute();",
          "await trx.deleteFrom( 'payments' ).execute();",
        ].join('\n'),
        'src/modules/reports/rollups.folds.ts': [
          '// update payments set rolled_status in prose is not SQL',
          'await sql`select 1 from payments`.execute(trx);',
          'await sql`update payments set rolled_status = $' + '{s} where id in ($' + '{ids})`.execute(trx);',
          'await sql`insert into report_rollups (a) values (1) on conflict do update set a = 2`.execute(trx);',
        ].join('\n'),
      }),
      [
        'src/modules/attempts/attempts.service.ts:2 foreign-write',
        'src/modules/attempts/attempts.service.ts:3 foreign-write',
        'src/modules/reports/rollups.folds.ts:3 foreign-write',
      ],
    );
  });

  test('a scratch file added to the real tree is found', () => {
    const files = sourcesUnder(ROOT, 'src');
    files.set(
      'src/modules/customers/scratch.ts',
      "import * as tracks from '../tracks/tracks.repository.js';\nexport const t = tracks;\n",
    );
    const found = checkBorders(files).filter((v) => v.file === 'src/modules/customers/scratch.ts');
    assert.deepEqual(
      found.map((v) => v.message),
      [
        "imports src/modules/tracks/tracks.repository.js, private to src/modules/tracks/; use that module's public face (its index.ts)",
      ],
    );
  });

  test('import circles are found, type-only imports included, and the command fails on them', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'borders-'));
    try {
      mkdirSync(path.join(root, 'src/lib'), { recursive: true });
      writeFileSync(
        path.join(root, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }),
      );
      writeFileSync(
        path.join(root, 'src/lib/a.ts'),
        "import type { B } from './b.js';\nexport type A = B[];\n",
      );
      writeFileSync(
        path.join(root, 'src/lib/b.ts'),
        "import type { A } from './a.js';\nexport type B = A | 1;\n",
      );
      writeFileSync(
        path.join(root, 'src/lib/c.ts'),
        "import type { A } from './a.js';\nexport type C = A;\n",
      );
      assert.deepEqual(await importCircles(root), [['src/lib/a.ts', 'src/lib/b.ts']]);
      await assert.rejects(
        run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tools/check-borders.ts'), root], {
          cwd: ROOT,
        }),
        (error: { code: number; stderr: string }) => {
          assert.equal(error.code, 1);
          assert.match(error.stderr, /import circle: src\/lib\/a\.ts -> src\/lib\/b\.ts -> src\/lib\/a\.ts/);
          return true;
        },
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
