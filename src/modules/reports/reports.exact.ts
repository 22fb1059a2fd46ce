import { AppError, fieldError } from '../../lib/app-error.js';
import { DateOutOfRangeError, LAST_DATE } from '../../lib/calendar.js';
import { UnsafeIntegerError } from '../../lib/money.js';

// Report figures are sums of integer columns: exact in the database (SQLite adds integers as 64-bit integers,
// PostgreSQL sums bigint as numeric), read through a checked conversion and added in code by `addExact`. A figure
// past 2^53 - 1 cannot be answered exactly as a JSON number, so the report is refused with a clear error instead.

/** What a report answers instead of a figure it cannot carry exactly. */
export function totalTooLarge(): AppError {
  return new AppError(
    'total_too_large',
    `A figure of this report passes ${Number.MAX_SAFE_INTEGER} minor units (2^53 - 1), the largest integer a JSON number carries exactly, so the report is refused rather than answered rounded. Ask for a shorter period (from, to) when the figure is a sum over the period.`,
    { largest: Number.MAX_SAFE_INTEGER },
  );
}

/** SQLite's sum() of integers past 2^63 - 1. */
function isSqliteOverflow(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === 'SQLITE_ERROR' &&
    error.message === 'integer overflow'
  );
}

/**
 * Runs a report's reads and sums, turning what it cannot answer exactly into clear errors: a figure past
 * 2^53 - 1, in the database or in code, is `total_too_large`; a date past 9999-12-31 in the workspace zone (a
 * `to` late on 9999-12-31 east of UTC) is a validation error naming `to`.
 */
export async function asReport<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UnsafeIntegerError || isSqliteOverflow(error)) throw totalTooLarge();
    if (error instanceof DateOutOfRangeError) {
      throw fieldError({
        to: `the report reaches a date after ${LAST_DATE} in the workspace time zone, the last date kept; set to earlier`,
      });
    }
    throw error;
  }
}
