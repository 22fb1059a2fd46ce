import { dayInWords, listInWords } from '../../lib/in-words.js';
import { addExact, formatMoney } from '../../lib/money.js';
import type { Collection } from '../schedules/schedules.outlook.js';

/** What a mandate lets the business collect, in facts; `agreementText` puts it in words. */
export interface Terms {
  business: string;
  payer: string;
  /** The provider's display name. */
  provider: string;
  planTitle: string | null;
  /** The schedule the mandate collects; null when it names none (the amounts are then agreed elsewhere). */
  schedule: ScheduleTerms | null;
}

export interface ScheduleTerms {
  currency: string;
  /** How often, in words ("every month"); null when the dates follow no rule. */
  cadence: string | null;
  /** The collections still to come, oldest first. */
  collections: Collection[];
  /** Repeats with no end: the amount of each payment; the collections are then only the first ones. */
  openEndedAmount: number | null;
}

const UNITS: Record<string, [string, string]> = {
  daily: ['day', 'days'],
  custom: ['day', 'days'],
  weekly: ['week', 'weeks'],
  monthly: ['month', 'months'],
  installment_sequence: ['month', 'months'],
};

/** How often a schedule's frequency repeats, in words: "every month", "every 2 weeks"; null when it does not. */
export function cadenceOf(frequency: string, interval: number | null): string | null {
  const unit = UNITS[frequency];
  if (!unit) return null;
  return interval && interval > 1 && frequency !== 'installment_sequence'
    ? `every ${interval} ${unit[1]}`
    : `every ${unit[0]}`;
}

/** Runs of equal amounts, in order: [[2, 15000], [1, 15001]]. */
function runsOf(amounts: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const amount of amounts) {
    const last = runs[runs.length - 1];
    if (last && last[1] === amount) last[0] += 1;
    else runs.push([1, amount]);
  }
  return runs;
}

/**
 * Each amount, grouped where they repeat: "3 payments of ₦15,000.00", or "2 payments of ₦15,000.00 and a last
 * payment of ₦15,000.01" (an instalment plan's last one takes the remainder), or "a first payment of ₦5,000.00
 * and 2 payments of ₦15,000.00" (the first already paid in part).
 */
export function amountsInWords(amounts: readonly number[], currency: string): string {
  const runs = runsOf(amounts);
  return listInWords(
    runs.map(([count, amount], i) => {
      const money = formatMoney(amount, currency);
      if (count > 1) return `${count} payments of ${money}`;
      if (runs.length === 1) return `one payment of ${money}`;
      if (i === 0) return `a first payment of ${money}`;
      return i === runs.length - 1 ? `a last payment of ${money}` : `one payment of ${money}`;
    }),
  );
}

/** The sum of the collections, in minor units. */
export function totalOf(collections: readonly Collection[]): number {
  return collections.reduce((sum, c) => addExact(sum, c.amount, 'total'), 0);
}

/**
 * The agreement, word for word, as the page shows it and the mandate keeps it as evidence: who may collect what
 * from whom, for what, through which provider; each amount, how many, the total and the first and last dates
 * (or, when it repeats with no end, the amount, how often and from when).
 */
export function agreementText(terms: Terms): string {
  const { business, schedule } = terms;
  const who = `from ${terms.payer}${terms.planTitle ? ` for ${terms.planTitle}` : ''}`;
  const how = `by automatic debit through ${terms.provider}`;
  const withdraw = `You can withdraw this authority at any time by asking ${business}.`;
  const c = schedule?.collections ?? [];
  const first = c[0];
  const last = c[c.length - 1];
  if (!schedule || !first || !last) {
    return `${business} may collect the amounts agreed with you ${who} ${how}. ${withdraw}`;
  }
  const { currency, cadence } = schedule;
  if (schedule.openEndedAmount !== null) {
    const each = formatMoney(schedule.openEndedAmount, currency);
    const often = cadence ? ` ${cadence}` : ' on each due date';
    return `${business} may collect ${each}${often} ${who} ${how}, starting ${dayInWords(first.date)} and continuing until cancelled (there is no set number of payments). ${withdraw}`;
  }
  if (c.length === 1) {
    return `${business} may collect ${formatMoney(first.amount, currency)} ${who} ${how}, once, on ${dayInWords(first.date)}. ${withdraw}`;
  }
  const total = formatMoney(totalOf(c), currency);
  const when = `${cadence ? `${cadence} ` : ''}from ${dayInWords(first.date)} to ${dayInWords(last.date)}`;
  const amounts = c.map((x) => x.amount);
  const each =
    runsOf(amounts).length === 1
      ? `in ${c.length} payments of ${formatMoney(first.amount, currency)}, ${when}`
      : `in ${c.length} payments ${when}: ${amountsInWords(amounts, currency)}`;
  return `${business} may collect ${total} in all ${who} ${how}, ${each}. ${withdraw}`;
}
