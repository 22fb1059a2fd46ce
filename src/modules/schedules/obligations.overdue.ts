import { type SqlBool, sql } from 'kysely';
import type { ObligationStatus } from './schedules.table.js';

/**
 * What "overdue" means, in one place for reports, customer balances, the plan list's filter and the obligation
 * lists: an obligation is overdue when its overdue time (the start of the day after its due date in its
 * schedule's zone) has come by the tenant's clock and it is not fully paid. The overdue sweep records the status
 * `overdue` (with its event); until it has run, a pending or partially paid obligation past that time is overdue
 * all the same. Statuses are written out, not bound: partial indexes are used only for conditions of their own
 * form (SQLite, and PostgreSQL's generic plans).
 */
const OVERDUE_RECORDED = sql<SqlBool>`status = 'overdue'`;
const overdueNotRecorded = (at: string) =>
  sql<SqlBool>`status in ('pending', 'partially_paid') and overdue_at <= ${at}`;

/** The two halves of "overdue at `at`", for reads that take each from its own index. */
export const overdueNowParts = (at: string) => [OVERDUE_RECORDED, overdueNotRecorded(at)] as const;

/**
 * Overdue at `at`, as one condition over the columns of `obligations`. It starts with the open statuses as the
 * partial index of open obligations by overdue time is written, so that index serves it.
 */
export const isOverdueNow = (at: string) =>
  sql<SqlBool>`status in ('pending', 'partially_paid', 'overdue') and (status = 'overdue' or overdue_at <= ${at})`;

/** A pending or partially paid obligation not overdue at `at`: its overdue time has not come. */
export const notOverdueYet = (status: 'pending' | 'partially_paid', at: string) =>
  sql<SqlBool>`status = ${sql.lit(status)} and overdue_at > ${at}`;

/** An obligation's status at `at`: the one it has, or overdue once its overdue time has come and it is still open. */
export function statusAt(
  row: { status: ObligationStatus; overdue_at: string },
  at: string,
): ObligationStatus {
  return (row.status === 'pending' || row.status === 'partially_paid') && row.overdue_at <= at
    ? 'overdue'
    : row.status;
}

/**
 * A plan (a row of `tracks` in the enclosing query) with money overdue at `at`, `today` being that instant's
 * calendar date in the workspace zone: an obligation of it overdue, or it is active with a balance left and its
 * dueDate before today. The overdue report counts exactly these plans. Never null (a plan without a dueDate is
 * not overdue by it), so its negation lists the others.
 */
export const planOverdueNow = (at: string, today: string) =>
  sql<SqlBool>`((tracks.status = 'active' and tracks.balance > 0 and tracks.due_date is not null and tracks.due_date < ${today}) or exists (select 1 from obligations where obligations.track_id = tracks.id and ${isOverdueNow(at)}))`;

/** Statuses an obligation list can be filtered by. */
export type ObligationStatusFilter = ObligationStatus;

/** Obligations whose status at `at` (`statusAt`) is `status`. */
export function hasStatusAt(status: ObligationStatusFilter, at: string) {
  switch (status) {
    case 'overdue':
      return isOverdueNow(at);
    case 'pending':
    case 'partially_paid':
      return notOverdueYet(status, at);
    default:
      return sql<SqlBool>`status = ${sql.lit(status)}`;
  }
}
