import { daysBetween } from '../../lib/calendar.js';
import { addExact } from '../../lib/money.js';
import type { Collections, Expected, Summary } from '../reports/reports.schemas.js';
import type { ApiAnswer, ApiError } from './console.api.js';
import type { Visit } from './console.visit.js';
import { datesFrom, type OverviewPeriods, periodsAt, type WeekAhead } from './overview.periods.js';

export const AGEING = ['1-30', '31-60', '61-90', '91+'] as const;
export type Ageing = (typeof AGEING)[number];

type SummaryFigures = Summary['currencies'][number];

/**
 * What the overview shows of one currency, every amount in integer minor units. A figure is undefined when the
 * report it comes from could not be read (the problem is shown instead of a wrong number).
 */
export interface CurrencyOverview {
  currency: string;
  collected: { today?: number; week?: number; month?: number };
  outstanding?: number;
  overdue?: number;
  expectedNext30Days?: number;
  /** Of this month so far, as `GET /reports/summary?from=<first of the month>` gives them; null when none. */
  collectionRate?: number | null;
  dso?: number | null;
  ageing?: Record<Ageing, number>;
  /** Every day of the last 90, today last, with what came in (0 on a day without payments). */
  byDay?: { date: string; total: number; count: number }[];
  /** What open obligations still ask, by the week they fall due in, the next 8 weeks. */
  byWeek?: (WeekAhead & { amount: number })[];
}

export interface Overview {
  periods: OverviewPeriods;
  currencies: CurrencyOverview[];
  /** What the API refused to answer (a figure too large to be exact, say): shown instead of wrong numbers. */
  problems: ApiError[];
}

/** The data of an answer, or undefined with its error put in `problems`. */
function dataOf<T>(answer: ApiAnswer<T>, problems: ApiError[]): T | undefined {
  if (answer.ok) return answer.data;
  problems.push(answer.error);
  return undefined;
}

/**
 * Everything the overview shows, read through the API as the signed-in person for the periods of `visit.now` in
 * the workspace's zone: the summary report from the start of today, of this week (Monday) and of this month to
 * now (with the ageing of what is overdue now); the collections report by day over the last 90 days; the expected
 * collections report by day over the next 8 weeks. Each report is asked without `to`, so each reads "now" as the API itself does.
 */
export async function loadOverview(visit: Visit): Promise<Overview> {
  const periods = periodsAt(visit.now, visit.workspace.timeZone);
  const problems: ApiError[] = [];
  const lastWeek = periods.weeks[periods.weeks.length - 1] as WeekAhead;
  const [today, week, month, collections, expected] = await Promise.all([
    visit.api.get<Summary>('/reports/summary', { from: periods.from.today }),
    visit.api.get<Summary>('/reports/summary', { from: periods.from.week }),
    visit.api.get<Summary>('/reports/summary', { from: periods.from.month }),
    visit.api.get<Collections>('/reports/collections', { from: periods.from.chart, groupBy: 'day' }),
    visit.api.get<Expected>('/reports/expected', {
      due_from: periods.today,
      due_to: lastWeek.last,
      groupBy: 'day',
    }),
  ]);
  const ofToday = dataOf(today, problems);
  const ofWeek = dataOf(week, problems);
  const ofMonth = dataOf(month, problems);
  const byDay = dataOf(collections, problems);
  const ahead = dataOf(expected, problems);

  const figures = (summary: Summary | undefined, currency: string): SummaryFigures | undefined =>
    summary?.currencies.find((c) => c.currency === currency);
  const names = new Set<string>();
  for (const summary of [ofToday, ofWeek, ofMonth])
    for (const c of summary?.currencies ?? []) names.add(c.currency);
  for (const c of byDay?.currencies ?? []) names.add(c.currency);
  for (const c of ahead?.currencies ?? []) names.add(c.currency);
  if (names.size === 0) names.add(visit.workspace.currency);
  // The workspace's own currency first, the others in alphabetical order.
  const order = [...names].sort((a, b) =>
    a === visit.workspace.currency ? -1 : b === visit.workspace.currency ? 1 : a.localeCompare(b),
  );

  const days = datesFrom(periods.firstChartDay, periods.today);
  const currencies = order.map((currency): CurrencyOverview => {
    const m = figures(ofMonth, currency);
    const collected = byDay?.currencies.find((c) => c.currency === currency);
    const perDay = new Map((collected?.periods ?? []).map((p) => [p.period, p]));
    const weeks = periods.weeks.map((w) => ({ ...w, amount: 0 }));
    for (const p of ahead?.currencies.find((c) => c.currency === currency)?.periods ?? []) {
      const week = weeks[Math.floor(daysBetween(periods.today, p.period) / 7)];
      if (week) week.amount = addExact(week.amount, p.amount);
    }
    return {
      currency,
      collected: {
        today: ofToday && (figures(ofToday, currency)?.collected ?? 0),
        week: ofWeek && (figures(ofWeek, currency)?.collected ?? 0),
        month: ofMonth && (m?.collected ?? 0),
      },
      outstanding: ofMonth && (m?.outstanding ?? 0),
      overdue: ofMonth && (m?.overdue ?? 0),
      expectedNext30Days: ofMonth && (m?.expectedNext30Days ?? 0),
      collectionRate: ofMonth && (m?.collectionRate ?? null),
      dso: ofMonth && (m?.dso ?? null),
      ageing:
        ofMonth &&
        (Object.fromEntries(AGEING.map((b) => [b, m?.overdueBuckets[b] ?? 0])) as Record<Ageing, number>),
      byDay:
        byDay &&
        days.map((date) => ({
          date,
          total: perDay.get(date)?.total ?? 0,
          count: perDay.get(date)?.count ?? 0,
        })),
      byWeek: ahead && weeks,
    };
  });
  return { periods, currencies, problems };
}
