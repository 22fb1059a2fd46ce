import { addDays, localDate, startOfDay } from '../../lib/calendar.js';

/** Days the chart of collections covers, today included. */
export const CHART_DAYS = 90;
/** Weeks ahead the chart of expected collections covers, from today. */
export const WEEKS_AHEAD = 8;

/** A week ahead: its first and last calendar dates, both included. */
export interface WeekAhead {
  first: string;
  last: string;
}

/**
 * The periods of the overview, read at one instant in the workspace's time zone: calendar dates, and the instants
 * their local days start at (what the reports take as `from`). Weeks start on Monday, as the reports' do.
 */
export interface OverviewPeriods {
  today: string;
  monday: string;
  firstOfMonth: string;
  firstChartDay: string;
  from: { today: string; week: string; month: string; chart: string };
  /** The 8 weeks from today: today to today + 6, then each next 7 days. */
  weeks: WeekAhead[];
}

/** 0 on Monday, 6 on Sunday, for a calendar date. */
const daysSinceMonday = (date: string) => (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;

export function periodsAt(now: Date, timeZone: string): OverviewPeriods {
  const today = localDate(now, timeZone);
  const monday = addDays(today, -daysSinceMonday(today));
  const firstOfMonth = `${today.slice(0, 8)}01`;
  const firstChartDay = addDays(today, 1 - CHART_DAYS);
  return {
    today,
    monday,
    firstOfMonth,
    firstChartDay,
    from: {
      today: startOfDay(today, timeZone),
      week: startOfDay(monday, timeZone),
      month: startOfDay(firstOfMonth, timeZone),
      chart: startOfDay(firstChartDay, timeZone),
    },
    weeks: Array.from({ length: WEEKS_AHEAD }, (_, n) => ({
      first: addDays(today, 7 * n),
      last: addDays(today, 7 * n + 6),
    })),
  };
}

/** The calendar dates from `first` to `last`, both included. */
export function datesFrom(first: string, last: string): string[] {
  const dates: string[] = [];
  for (let date = first; date <= last; date = addDays(date, 1)) dates.push(date);
  return dates;
}
