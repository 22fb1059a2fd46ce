import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. A schedule has at most one active mandate: a mandate replaced by a newer approval is `replaced`, with
 * when (`replaced_at`) and by which (`replaced_by`). Schedules that already have several active mandates keep the
 * one activated last; the others are marked replaced by it, as of its activation. Then a partial unique index
 * makes the rule the database's own.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await db.schema.alterTable('mandates').addColumn('replaced_at', sql.raw(t.instant)).execute();
  await db.schema
    .alterTable('mandates')
    .addColumn('replaced_by', sql.raw(t.id), (c) => c.references('mandates.id'))
    .execute();

  const keeper = (column: 'id' | 'activated_at') =>
    sql.raw(`(select k.${column} from mandates k where k.schedule_id = mandates.schedule_id and k.status = 'active'
      order by k.activated_at desc, k.id desc limit 1)`);
  await sql`update mandates
    set status = 'replaced', replaced_by = ${keeper('id')}, replaced_at = ${keeper('activated_at')},
      updated_at = ${keeper('activated_at')}
    where status = 'active' and schedule_id is not null and id <> ${keeper('id')}`.execute(db);

  await db.schema
    .createIndex('mandates_one_active')
    .on('mandates')
    .column('schedule_id')
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();
}
