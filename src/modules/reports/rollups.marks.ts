import { type SqlBool, sql } from 'kysely';

// The marks that say what the report rollup holds of plans and customers, as conditions: rows whose mark differs
// from what they are now are not counted yet. Each is written as its index's condition, so that SQLite uses that
// index.

/** The rollup kind of a ledger entry: its type, marked when it has no plan (it moves no plan's balance). */
export const ledgerKind = (type: string, trackId: string | null) =>
  trackId === null ? `${type}~no_plan` : type;

/**
 * Plans and customers are counted per status: the table each is read from and the statuses it may have, listed
 * as in the condition of its index of rows not counted yet (migration 0013), which `statusUnrolled` must match.
 */
export const STATUS_SOURCES = {
  plans: { table: 'tracks', statuses: ['active', 'completed', 'archived'] },
  customers: { table: 'customers', statuses: ['active', 'archived'] },
} as const;
export type StatusSource = keyof typeof STATUS_SOURCES;

/**
 * Rows whose status differs from the one they were last counted with ('' before the first count), written over
 * single columns (each status the mark may hold, and a status other than it) as in their index.
 */
export function statusUnrolled(source: StatusSource) {
  const differs = STATUS_SOURCES[source].statuses.map(
    (status) => sql`(rolled_status = ${sql.lit(status)} and status <> ${sql.lit(status)})`,
  );
  return sql<SqlBool>`(rolled_status = '' or ${sql.join(differs, sql` or `)})`;
}
