import { addDays, LAST_DATE, startOfDay } from './calendar.js';

/**
 * A late fee policy, as a schedule keeps it: `fixed` charges `value` minor units, `percent` charges `value` per
 * cent (up to 2 decimals) of what the instalment still asks when the fee is charged, rounded half up. Period k
 * (0-based) falls due `grace_days` days after the instalment is overdue, plus k × `every_days` (only k = 0 when
 * `every_days` is null). Caps: what fees charged (not waived) on one instalment, or on the whole plan, may
 * reach; the last fee is cut to fit.
 */
export interface LateFeePolicy {
  type: 'fixed' | 'percent';
  value: number;
  every_days: number | null;
  grace_days: number;
  cap_per_obligation: number | null;
  cap_per_plan: number | null;
}

export const LATE_FEE_TYPES = ['fixed', 'percent'] as const;
export const MAX_FEE_DAYS = 365;
const MAX_AMOUNT = 1_000_000_000_000;

/** A policy as given (its optional parts may be missing). */
export type LateFeeInput = Pick<LateFeePolicy, 'type' | 'value'> & Partial<LateFeePolicy>;

/** The policy with its defaults, or the problems by field (`value`, `every_days`...), each alone and together. */
export function readLateFee(
  input: LateFeeInput,
): { policy: LateFeePolicy } | { problems: Partial<Record<keyof LateFeePolicy, string>> } {
  const problems: Partial<Record<keyof LateFeePolicy, string>> = {};
  const { type, value } = input;
  if (type === 'fixed' && !(Number.isInteger(value) && value >= 1 && value <= MAX_AMOUNT)) {
    problems.value = 'must be a whole number of minor units from 1 for a fixed fee';
  }
  if (type === 'percent' && !(value > 0 && value <= 100 && basisPoints(value) !== null)) {
    problems.value = 'must be a percentage above 0 and at most 100, with at most 2 decimals';
  }
  const policy: LateFeePolicy = {
    type,
    value,
    every_days: input.every_days ?? null,
    grace_days: input.grace_days ?? 0,
    cap_per_obligation: input.cap_per_obligation ?? null,
    cap_per_plan: input.cap_per_plan ?? null,
  };
  const days = (n: number | null, min: number) =>
    n === null || (Number.isInteger(n) && n >= min && n <= MAX_FEE_DAYS);
  if (!days(policy.every_days, 1))
    problems.every_days = `must be null or a whole number of days from 1 to ${MAX_FEE_DAYS}`;
  if (!days(policy.grace_days, 0))
    problems.grace_days = `must be a whole number of days from 0 to ${MAX_FEE_DAYS}`;
  for (const cap of ['cap_per_obligation', 'cap_per_plan'] as const) {
    const n = policy[cap];
    if (n !== null && !(Number.isInteger(n) && n >= 1 && n <= MAX_AMOUNT)) {
      problems[cap] = 'must be null or a positive whole number of minor units';
    }
  }
  return Object.keys(problems).length > 0 ? { problems } : { policy };
}

/** A percentage with at most 2 decimals as basis points (2.5 -> 250); null when it has more decimals. */
function basisPoints(percent: number): number | null {
  const bp = Math.round(percent * 100);
  return Math.abs(bp - percent * 100) < 1e-6 ? bp : null;
}

/** The fee of a period on an instalment still asking `overdue`, before caps; 0 means none is charged. */
export function feeOf(policy: LateFeePolicy, overdue: number): number {
  if (policy.type === 'fixed') return policy.value;
  const bp = BigInt(basisPoints(policy.value) ?? 0);
  return Number((BigInt(overdue) * bp + 5000n) / 10000n);
}

/**
 * The local date period `k` of an instalment due on `dueDate` falls due on (its instant is the start of that day
 * in the schedule's zone); null when the policy has no such period or it would fall after 9999-12-31.
 */
export function periodDate(policy: LateFeePolicy, dueDate: string, k: number): string | null {
  if (k > 0 && policy.every_days === null) return null;
  const days = 1 + policy.grace_days + k * (policy.every_days ?? 0);
  if (dueDate >= LAST_DATE) return null;
  const room = (Date.parse(`${LAST_DATE}T00:00:00Z`) - Date.parse(`${dueDate}T00:00:00Z`)) / 86_400_000;
  return days > room ? null : addDays(dueDate, days);
}

/** When period `k` falls due, as an instant, with its date; null when there is no such period. */
export function periodDue(
  policy: LateFeePolicy,
  dueDate: string,
  k: number,
  timeZone: string,
): { date: string; at: string } | null {
  const date = periodDate(policy, dueDate, k);
  return date === null ? null : { date, at: startOfDay(date, timeZone) };
}

/**
 * The first period of an instalment due on `dueDate` that falls due at or after `from` (and not before period
 * `atLeast`); null when none will.
 */
export function firstPeriodFrom(
  policy: LateFeePolicy,
  dueDate: string,
  timeZone: string,
  from: string,
  atLeast = 0,
): { k: number; date: string; at: string } | null {
  const first = periodDue(policy, dueDate, atLeast, timeZone);
  if (first === null) return null;
  if (Date.parse(first.at) >= Date.parse(from)) return { k: atLeast, ...first };
  if (policy.every_days === null) return null;
  const behindDays = Math.floor((Date.parse(from) - Date.parse(first.at)) / 86_400_000);
  let k = atLeast + Math.max(0, Math.floor(behindDays / policy.every_days) - 1);
  for (;;) {
    const due = periodDue(policy, dueDate, k, timeZone);
    if (due === null) return null;
    if (Date.parse(due.at) >= Date.parse(from)) return { k, ...due };
    k++;
  }
}

/** A stored policy (JSON, null for none). */
export function lateFeeOf(stored: string | null): LateFeePolicy | null {
  return stored === null ? null : (JSON.parse(stored) as LateFeePolicy);
}

/**
 * Where an open instalment's fees start under a policy set (or made) at `at`: its first period falling due then
 * or later, and not before period `atLeast` (one after the last already charged). Periods that fell due before
 * the policy was set are not charged.
 */
export function feeStart(
  policy: LateFeePolicy | null,
  instalment: { due_date: string },
  timeZone: string,
  at: string,
  atLeast = 0,
): { fee_next_at: string | null; fee_period: number | null } {
  const first = policy && firstPeriodFrom(policy, instalment.due_date, timeZone, at, atLeast);
  return first ? { fee_next_at: first.at, fee_period: first.k } : { fee_next_at: null, fee_period: null };
}

/** A policy as the account's settings name its parts (camelCase). */
export interface LateFeeDefault {
  type: LateFeePolicy['type'];
  value: number;
  everyDays: number | null;
  graceDays: number;
  capPerObligation: number | null;
  capPerPlan: number | null;
}

const CAMEL: Record<keyof LateFeePolicy, keyof LateFeeDefault> = {
  type: 'type',
  value: 'value',
  every_days: 'everyDays',
  grace_days: 'graceDays',
  cap_per_obligation: 'capPerObligation',
  cap_per_plan: 'capPerPlan',
};

/** The camelCase name of a policy's part (`every_days` -> `everyDays`). */
export const camelPart = (part: string): string => CAMEL[part as keyof LateFeePolicy] ?? part;

export function lateFeeToCamel(policy: LateFeePolicy | null): LateFeeDefault | null {
  if (policy === null) return null;
  return {
    type: policy.type,
    value: policy.value,
    everyDays: policy.every_days,
    graceDays: policy.grace_days,
    capPerObligation: policy.cap_per_obligation,
    capPerPlan: policy.cap_per_plan,
  };
}

export function lateFeeFromCamel(
  input: Pick<LateFeeDefault, 'type' | 'value'> & Partial<LateFeeDefault>,
): LateFeeInput {
  return {
    type: input.type,
    value: input.value,
    ...(input.everyDays !== undefined ? { every_days: input.everyDays } : {}),
    ...(input.graceDays !== undefined ? { grace_days: input.graceDays } : {}),
    ...(input.capPerObligation !== undefined ? { cap_per_obligation: input.capPerObligation } : {}),
    ...(input.capPerPlan !== undefined ? { cap_per_plan: input.capPerPlan } : {}),
  };
}
