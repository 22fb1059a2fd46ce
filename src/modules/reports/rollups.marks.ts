import { type SqlBool, sql } from 'kysely';

// The marks that say what the report rollup holds, as conditions: rows whose mark differs from what they are now
// are not folded in yet. Each is written as its index's condition, so that SQLite uses that index.

/** The rollup kind of a ledger entry: its type, marked when it has no plan (it moves no plan's balance). */
export const ledgerKind = (type: string, trackId: string | null) =>
  trackId === null ? `${type}~no_plan` : type;

/** Ledger entries not folded in yet. */
export const LEDGER_UNROLLED = sql<SqlBool>`rolled_up = 0`;
/** Both marks listed, so that the index on (tenant, mark, time) serves a range of time. */
export const LEDGER_ANY = sql<SqlBool>`rolled_up in (0, 1)`;
/**
 * Payments whose status differs from the one they were folded in with ('' before the first fold; a split payment
 * counts out as a reversed one does, its parts count in), written over
 * single columns so that PostgreSQL estimates it, with every mark listed so that SQLite reads the marks' index.
 */
export const PAYMENT_UNROLLED = sql<SqlBool>`(rolled_status = '' or (rolled_status = 'recorded' and status = 'reversed') or (rolled_status = 'recorded' and status = 'split') or (rolled_status = 'reversed' and status = 'recorded')) and rolled_status in ('', 'recorded', 'reversed')`;
/** What an obligation owes now: what is left of it while open, else 0. The figure the obligations' rollup keeps. */
export const OWED_NOW = sql<number>`case when status in ('pending', 'partially_paid', 'overdue') then amount - amount_paid else 0 end`;
/** As in the index of obligations not folded yet, so that SQLite uses it. */
export const OBLIGATION_UNROLLED = sql<SqlBool>`rolled_owed <> ${OWED_NOW}`;

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
