import { addDays, startOfDay } from '../../lib/calendar.js';

/** The automatic reminders of an obligation, in order, with their day relative to the due date. */
export const REMINDER_STAGES = [
  { name: '3_days_before', days: -3 },
  { name: 'due_day', days: 0 },
  { name: '3_days_after', days: 3 },
  { name: '7_days_after', days: 7 },
] as const;
export type ReminderStage = (typeof REMINDER_STAGES)[number]['name'];

/** When stage `index` of an obligation due on `dueDate` falls due: the start of its day in the zone; null past the last. */
export function stageStart(dueDate: string, index: number, timeZone: string): string | null {
  const stage = REMINDER_STAGES[index];
  return stage ? startOfDay(addDays(dueDate, stage.days), timeZone) : null;
}

/** The last stage at or before `now`, from `from` on; null when none has fallen due yet. */
export function latestDueStage(dueDate: string, from: number, timeZone: string, now: string): number | null {
  let latest: number | null = null;
  for (let i = from; i < REMINDER_STAGES.length; i++) {
    const start = stageStart(dueDate, i, timeZone);
    if (start === null || start > now) break;
    latest = i;
  }
  return latest;
}
