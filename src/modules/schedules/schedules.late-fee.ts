import type { Trx } from '../../db/schema.js';
import { fieldError } from '../../lib/app-error.js';
import { feeStart, type LateFeeInput, lateFeeOf, readLateFee } from '../../lib/late-fee.js';
import * as obligations from './obligations.repository.js';
import type { SchedulesTable } from './schedules.table.js';

/** A policy given in a request, as stored (JSON; null for none); a bad one is a validation_error naming `field.part`. */
export function storedLateFee(input: LateFeeInput | null, field: string): string | null {
  if (input === null) return null;
  const read = readLateFee(input);
  if ('problems' in read) {
    throw fieldError(
      Object.fromEntries(
        Object.entries(read.problems).map(([part, problem]) => [`${field}.${part}`, problem]),
      ),
    );
  }
  return JSON.stringify(read.policy);
}

/**
 * A schedule's new policy reaches its open instalments on a plan at once: each one's next fee is the first period
 * falling due from `now` under it, after the last period already charged on it; none without a policy.
 */
export async function restartFees(trx: Trx, schedule: SchedulesTable, now: string): Promise<void> {
  const policy = schedule.track_id ? lateFeeOf(schedule.late_fee) : null;
  for (const instalment of await obligations.openInstalmentsOfSchedule(trx, schedule.id)) {
    const last = policy ? await obligations.lastFeePeriod(trx, instalment.id) : null;
    const start = feeStart(policy, instalment, schedule.timezone, now, last === null ? 0 : last + 1);
    await obligations.setFeeNext(trx, instalment.id, instalment.fee_next_at, start);
  }
}
