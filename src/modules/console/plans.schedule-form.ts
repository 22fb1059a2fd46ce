import { readAmount } from './amount-input.js';
import { esc, field } from './console.html.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { readDate, startOf, todayOf } from './plans.parts.js';

/** The collection schedule of a plan as a form: its fields, and what they become for `POST /collection-schedules`. */

export const FREQUENCIES: readonly { value: string; label: string }[] = [
  { value: 'installment_sequence', label: 'Monthly instalments of the balance' },
  { value: 'monthly', label: 'Monthly' },
  { value: 'weekly', label: 'Weekly' },
  { value: 'daily', label: 'Daily' },
  { value: 'custom', label: 'Every few days (give the interval)' },
  { value: 'one_time', label: 'Once, on the first due date' },
  { value: 'flexible', label: 'Flexible: any parts, by one due date' },
];

export const COLLECTION_METHODS: readonly { value: string; label: string }[] = [
  { value: 'manual', label: 'Manual (recorded here)' },
  { value: 'reminder_only', label: 'Reminders only' },
  { value: 'gatewayA_checkout', label: 'Checkout page (gateway A)' },
  { value: 'gatewayB_virtual_account', label: 'Virtual account (gateway B)' },
  { value: 'auto_debit', label: 'Automatic debit (mandate)' },
  { value: 'mixed', label: 'Debit and reminders' },
];

export const frequencyLabel = (value: string) =>
  FREQUENCIES.find((f) => f.value === value)?.label ?? value.replaceAll('_', ' ');
export const methodLabel = (value: string) =>
  COLLECTION_METHODS.find((m) => m.value === value)?.label ?? value.replaceAll('_', ' ');

/** The API's names of a schedule's fields, as this form names them. */
export const SCHEDULE_FIELD_NAMES: Readonly<Record<string, string>> = { fixed_amount: 'instalment_amount' };

/** The form's fields of a schedule, as labels people read (for the list of problems at the top). */
export const SCHEDULE_LABELS: Readonly<Record<string, string>> = {
  frequency: 'How often',
  installments: 'Number of instalments',
  instalment_amount: 'Amount of each instalment',
  start_date: 'First due date',
  end_date: 'End date',
  interval: 'Interval',
  collection_method: 'Collection method',
};

/**
 * The schedule's fields. `optional`: the new-plan form, where "No schedule" is a choice; else the form of a plan
 * that exists, whose `installments` cannot change any more.
 */
export function scheduleFields(
  visit: Visit,
  values: ConsoleForm,
  errors: Readonly<Record<string, string>>,
  options: { optional: boolean; currency: string },
): string {
  const frequencies = options.optional
    ? [{ value: '', label: 'No schedule for now' }, ...FREQUENCIES]
    : FREQUENCIES;
  const amountHint = `In ${options.currency}, like 1,500.00. Leave it empty to divide the ${
    options.optional ? 'amount' : 'balance'
  } by the number of instalments.`;
  return [
    field({
      label: SCHEDULE_LABELS.frequency as string,
      name: 'frequency',
      options: frequencies,
      value: values.frequency ?? (options.optional ? '' : 'installment_sequence'),
      error: errors.frequency,
    }),
    field({
      label: SCHEDULE_LABELS.installments as string,
      name: 'installments',
      type: 'number',
      value: values.installments,
      hint: 'Or give the amount of each instalment below.',
      error: errors.installments,
      attributes: 'min="1" max="1000" inputmode="numeric"',
    }),
    field({
      label: SCHEDULE_LABELS.instalment_amount as string,
      name: 'instalment_amount',
      value: values.instalment_amount,
      hint: amountHint,
      error: errors.instalment_amount,
      attributes: 'inputmode="decimal" autocomplete="off"',
    }),
    field({
      label: SCHEDULE_LABELS.start_date as string,
      name: 'start_date',
      type: 'date',
      value: values.start_date ?? todayOf(visit),
      hint: `A calendar date in ${visit.workspace.timeZone}.`,
      error: errors.start_date,
    }),
    field({
      label: `${SCHEDULE_LABELS.end_date} (optional)`,
      name: 'end_date',
      type: 'date',
      value: values.end_date,
      hint: 'Nothing falls due after it. Not for instalments or once.',
      error: errors.end_date,
    }),
    field({
      label: `${SCHEDULE_LABELS.interval} (optional)`,
      name: 'interval',
      type: 'number',
      value: values.interval,
      hint: 'Days, weeks or months between due dates (1 unless given); required for "every few days".',
      error: errors.interval,
      attributes: 'min="1" max="1000" inputmode="numeric"',
    }),
    field({
      label: SCHEDULE_LABELS.collection_method as string,
      name: 'collection_method',
      options: COLLECTION_METHODS,
      value: values.collection_method ?? 'manual',
      error: errors.collection_method,
    }),
  ].join('\n');
}

export type ScheduleBody = {
  target_type: 'payment_plan';
  target_id?: string;
  frequency: string;
  fixed_amount: number;
  start_date: string;
  collection_method: string;
  end_date?: string;
  interval?: number;
};

export type ScheduleRead =
  | { ok: true; none: true; installments?: number }
  | { ok: true; none: false; body: ScheduleBody; installments?: number }
  | { ok: false; errors: Record<string, string> };

function readCount(text: string | undefined, name: string, errors: Record<string, string>) {
  const value = (text ?? '').trim();
  if (value === '') return undefined;
  if (!/^[0-9]{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 1000) {
    errors[name] = 'Enter a whole number from 1 to 1,000.';
    return undefined;
  }
  return Number(value);
}

/**
 * The schedule the form asks for, over `total` (the new plan's amount, or the balance of a plan that exists).
 * Without an amount of each instalment it is the total divided by the number of instalments: rounded down for
 * monthly instalments of a plan that has that number (the last takes the remainder), else up (the last is
 * smaller), as the API spreads them. Errors of the console's own reading are named by field.
 */
export function readSchedule(
  visit: Visit,
  form: ConsoleForm,
  plan: { currency: string; total: number | undefined; installments: number | null; optional: boolean },
): ScheduleRead {
  const errors: Record<string, string> = {};
  const frequency = form.frequency ?? '';
  const count = readCount(form.installments, 'installments', errors);
  if (frequency === '' && plan.optional) {
    return Object.keys(errors).length > 0
      ? { ok: false, errors }
      : { ok: true, none: true, ...(count ? { installments: count } : {}) };
  }
  if (!FREQUENCIES.some((f) => f.value === frequency)) errors.frequency = 'Choose how often.';
  const method = form.collection_method ?? 'manual';
  if (!COLLECTION_METHODS.some((m) => m.value === method))
    errors.collection_method = 'Choose a collection method.';
  const interval = readCount(form.interval, 'interval', errors);
  const start = readDate(form.start_date);
  if (!start) errors.start_date = 'Enter the first due date as a date.';
  const endText = (form.end_date ?? '').trim();
  const end = endText === '' ? undefined : readDate(endText);
  if (endText !== '' && !end) errors.end_date = 'Enter the last due date as a date, or leave it empty.';
  let fixed: number | undefined;
  if ((form.instalment_amount ?? '').trim() !== '') {
    const read = readAmount(form.instalment_amount, plan.currency);
    if (read.ok) fixed = read.minor;
    else errors.instalment_amount = read.error;
  } else if (plan.total === undefined) {
    // The plan's amount is wrong: that is said beside it, and the instalments wait for it.
  } else if (count) {
    const downward = frequency === 'installment_sequence' && (plan.optional || plan.installments === count);
    fixed = downward ? Math.floor(plan.total / count) : Math.ceil(plan.total / count);
    if (fixed < 1) errors.installments = `More instalments than the ${plan.currency} minor units to spread.`;
  } else if (frequency === 'one_time' || frequency === 'flexible') {
    fixed = plan.total;
  } else if (!errors.installments) {
    errors.instalment_amount = 'Give the amount of each instalment, or the number of instalments.';
  }
  if (Object.keys(errors).length > 0 || fixed === undefined || !start) return { ok: false, errors };
  return {
    ok: true,
    none: false,
    body: {
      target_type: 'payment_plan',
      frequency,
      fixed_amount: fixed,
      start_date: startOf(visit, start),
      collection_method: method,
      ...(end ? { end_date: startOf(visit, end) } : {}),
      ...(interval ? { interval } : {}),
    },
    ...(count ? { installments: count } : {}),
  };
}

/** A short description of a schedule's rule: "Monthly, every 2 months". */
export function ruleInWords(schedule: { frequency: string; interval: number | null }): string {
  const unit = { daily: 'day', weekly: 'week', monthly: 'month', custom: 'day' }[schedule.frequency];
  const every =
    unit && schedule.interval && schedule.interval > 1 ? `, every ${schedule.interval} ${unit}s` : '';
  return `${esc(frequencyLabel(schedule.frequency))}${esc(every)}`;
}
