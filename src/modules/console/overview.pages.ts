import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { addExact, toMajorUnits } from '../../lib/money.js';
import type { ApiError } from './console.api.js';
import { assetUrl } from './console.assets.js';
import { day, esc, money, problem, when } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { Visit } from './console.visit.js';
import { visitIn } from './console.visit.js';
import { AGEING, type Ageing, type CurrencyOverview, loadOverview, type Overview } from './overview.data.js';
import { CHART_DAYS, WEEKS_AHEAD } from './overview.periods.js';

const shortDates = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
/** A calendar date short, for a chart's axis: "12 Jun". */
const short = (date: string) => shortDates.format(new Date(`${date}T00:00:00Z`));

const weekdays = new Intl.DateTimeFormat('en-GB', { weekday: 'short', timeZone: 'UTC' });
/** A calendar date's short weekday: "Mon". */
const weekday = (date: string) => weekdays.format(new Date(`${date}T00:00:00Z`));

const AGEING_WORDS: Record<Ageing, string> = {
  '1-30': '1–30 days',
  '31-60': '31–60 days',
  '61-90': '61–90 days',
  '91+': '91 days or more',
};

const currencyNames = new Intl.DisplayNames(['en'], { type: 'currency' });
const currencyName = (code: string) => {
  try {
    return currencyNames.of(code) ?? code;
  } catch {
    return code;
  }
};

/** What stands in a figure whose report could not be read: the problem above the figures says why. */
const UNREAD = 'not available';

/** Nothing to show in words, for screen readers too. */
const NONE = '<span aria-hidden="true">—</span><span class="visually-hidden">none</span>';

function rate(value: number | null | undefined): string {
  if (value === undefined) return UNREAD;
  return value === null ? NONE : `${esc(Number((value * 100).toFixed(2)))}%`;
}

function days(value: number | null | undefined): string {
  if (value === undefined) return UNREAD;
  return value === null ? NONE : `${esc(value.toFixed(1))} days`;
}

/** A figure: its label, an optional hint (HTML, escaped by the caller) and its value (HTML). */
function figure(id: string, label: string, value: string, hint?: string): string {
  return `<div class="figure" id="${esc(id)}"><dt class="label">${esc(label)}${
    hint ? ` <span class="hint">${hint}</span>` : ''
  }</dt><dd class="value">${value}</dd></div>`;
}

/** A cell of money: what people read, and for the chart the amount in major units (a decimal string, exact). */
const amountCell = (minor: number, currency: string) =>
  `<td class="num" data-value="${esc(toMajorUnits(minor, currency))}">${money(minor, currency)}</td>`;

interface Row {
  label: string;
  head: string;
  cells: string;
}

/** A table a chart is drawn from: row headers, a short label per row for the chart's axis, a total beneath. */
function chartTable(
  id: string,
  currency: string,
  caption: string,
  heads: string[],
  rows: Row[],
  total?: string,
) {
  const head = heads.map((h, i) => `<th scope="col"${i === 0 ? '' : ' class="num"'}>${esc(h)}</th>`).join('');
  const body = rows
    .map((r) => `<tr data-label="${esc(r.label)}"><th scope="row">${r.head}</th>${r.cells}</tr>`)
    .join('\n');
  return `<div class="scroll"><table id="${esc(id)}" data-currency="${esc(currency)}"><caption class="visually-hidden">${esc(caption)}</caption>
<thead><tr>${head}</tr></thead><tbody>
${body}
</tbody>${total ? `<tfoot>${total}</tfoot>` : ''}</table></div>`;
}

/**
 * A chart with its title and its table: the container the chart is drawn into (by
 * /console/assets/overview-charts.js, from the table; empty and taking no room without script), or, when there is
 * nothing to draw, a sentence saying so.
 */
function chartFigure(f: {
  id: string;
  kind: string;
  title: string;
  table: string;
  empty: string | null;
  wide?: boolean;
}) {
  const body = f.empty
    ? `<p class="note">${esc(f.empty)}</p>`
    : `<div class="chart-box" data-chart="${esc(f.kind)}" data-table="${esc(f.id)}" data-title="${esc(f.title)}"></div>
${f.table}`;
  return `<figure class="card${f.wide ? ' wide' : ''}" aria-labelledby="${esc(f.id)}-title">
<figcaption><h3 id="${esc(f.id)}-title">${esc(f.title)}</h3></figcaption>
${body}
</figure>`;
}

const moneyOr = (minor: number | undefined, currency: string) =>
  minor === undefined ? UNREAD : money(minor, currency);
const sum = (values: readonly number[]) => values.reduce((total, v) => addExact(total, v), 0);

function collectionsChart(key: string, c: CurrencyOverview): string {
  const { currency } = c;
  const title = `Collected per day, last ${CHART_DAYS} days (${currency})`;
  const id = `${key}-by-day`;
  if (!c.byDay) return chartFigure({ id, kind: 'collections', title, table: '', empty: UNREAD, wide: true });
  const table = chartTable(
    id,
    currency,
    title,
    ['Day', 'Collected', 'Payments'],
    c.byDay.map((d) => ({
      label: short(d.date),
      head: day(d.date),
      cells: `${amountCell(d.total, currency)}<td class="num">${esc(d.count)}</td>`,
    })),
    `<tr><th scope="row">Total</th><td class="num">${money(sum(c.byDay.map((d) => d.total)), currency)}</td><td class="num">${esc(sum(c.byDay.map((d) => d.count)))}</td></tr>`,
  );
  return chartFigure({
    id,
    kind: 'collections',
    title,
    table: `<details><summary>The numbers, day by day</summary>\n${table}\n</details>`,
    empty: c.byDay.every((d) => d.count === 0)
      ? `No payments in ${currency} in the last ${CHART_DAYS} days.`
      : null,
    wide: true,
  });
}

function ageingChart(key: string, c: CurrencyOverview): string {
  const { currency, ageing } = c;
  const title = `Overdue by days past due (${currency})`;
  const id = `${key}-ageing`;
  if (!ageing) return chartFigure({ id, kind: 'ageing', title, table: '', empty: UNREAD });
  const total = sum(AGEING.map((b) => ageing[b]));
  const table = chartTable(
    id,
    currency,
    title,
    ['Days overdue', 'Amount'],
    AGEING.map((b) => ({
      label: AGEING_WORDS[b],
      head: esc(AGEING_WORDS[b]),
      cells: amountCell(ageing[b], currency),
    })),
    `<tr><th scope="row">Total overdue</th><td class="num">${money(total, currency)}</td></tr>`,
  );
  return chartFigure({
    id,
    kind: 'ageing',
    title,
    table,
    empty: total === 0 ? `Nothing is overdue in ${currency}.` : null,
  });
}

function weeksChart(key: string, c: CurrencyOverview): string {
  const { currency, byWeek } = c;
  const title = `Expected per week, next ${WEEKS_AHEAD} weeks (${currency})`;
  const id = `${key}-by-week`;
  if (!byWeek) return chartFigure({ id, kind: 'expected', title, table: '', empty: UNREAD });
  const table = chartTable(
    id,
    currency,
    title,
    ['Week', 'Expected'],
    byWeek.map((w) => ({
      label: short(w.first),
      head: `${day(w.first)} – ${day(w.last)}`,
      cells: amountCell(w.amount, currency),
    })),
  );
  const note =
    '<p class="note">What open instalments still ask, by the week they fall due in, from today.</p>';
  return chartFigure({
    id,
    kind: 'expected',
    title,
    table: `${table}\n${note}`,
    empty: byWeek.every((w) => w.amount === 0)
      ? `No open instalment in ${currency} falls due in the next ${WEEKS_AHEAD} weeks.`
      : null,
  });
}

function currencyBlock(c: CurrencyOverview, overview: Overview): string {
  const { currency } = c;
  const { periods } = overview;
  const key = currency.toLowerCase();
  const figures = [
    figure(
      `${key}-collected-today`,
      'Collected today',
      moneyOr(c.collected.today, currency),
      day(periods.today),
    ),
    figure(
      `${key}-collected-week`,
      'Collected this week',
      moneyOr(c.collected.week, currency),
      `since ${esc(weekday(periods.monday))} ${esc(short(periods.monday))}`,
    ),
    figure(
      `${key}-collected-month`,
      'Collected this month',
      moneyOr(c.collected.month, currency),
      `since ${esc(short(periods.firstOfMonth))}`,
    ),
    figure(`${key}-outstanding`, 'Outstanding', moneyOr(c.outstanding, currency)),
    figure(`${key}-overdue`, 'Overdue', moneyOr(c.overdue, currency)),
    figure(
      `${key}-expected`,
      'Expected in the next 30 days',
      moneyOr(c.expectedNext30Days, currency),
      'from open instalments',
    ),
    figure(`${key}-collection-rate`, 'Collection rate', rate(c.collectionRate), 'this month'),
    figure(`${key}-dso`, 'Days sales outstanding', days(c.dso), 'this month'),
  ].join('\n');
  return `<section class="currency" aria-labelledby="${key}-title">
<h2 id="${key}-title">${esc(currency)} <span class="hint">${esc(currencyName(currency))}</span></h2>
<dl class="grid figures">
${figures}
</dl>
<div class="charts">
${collectionsChart(key, c)}
${ageingChart(key, c)}
${weeksChart(key, c)}
</div>
</section>`;
}

function problems(list: readonly ApiError[]): string {
  const seen = new Set<string>();
  return list
    .filter((e) => {
      const key = `${e.code}|${e.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((e) => problem(e))
    .join('\n');
}

function overviewBody(visit: Visit, overview: Overview): string {
  return `<p class="note">Signed in as ${esc(visit.person.email)} (${esc(visit.person.role)}). Figures as of ${when(
    visit,
    visit.now.toISOString(),
  )}, ${esc(visit.workspace.timeZone)} time; each currency on its own, never added together.</p>
${problems(overview.problems)}
${overview.currencies.map((c) => currencyBlock(c, overview)).join('\n')}`;
}

export function overviewPages(app: FastifyInstance, _ctx: AppContext) {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    const overview = await loadOverview(visit);
    return sendPage(reply, visit, {
      title: 'Overview',
      section: 'overview',
      body: overviewBody(visit, overview),
      scripts: [assetUrl('chart.umd.min.js'), assetUrl('overview-charts.js')],
    });
  });
}
