import { escapeHtml } from '../../http/html-page.js';
import { dayInWords, shortDayInWords } from '../../lib/in-words.js';
import { formatMoney } from '../../lib/money.js';
import { portalPage } from './portal.page.js';
import type { PortalVisit } from './portal.visit.js';

/** The statement as GET /customers/{id}/statement answers it (what this page reads of it). */
export interface StatementData {
  from: string;
  to: string;
  currencies: {
    currency: string;
    openingBalance: number;
    closingBalance: number;
    lines: { date: string; description: string; amount: number; balance: number }[];
    overdue: { total: number };
    nextDue: { date: string; amount: number } | null;
  }[];
}

const esc = escapeHtml;

/** The statement on the customer's page: per currency, the lines with their running balance. */
export function statementPage(
  visit: Pick<PortalVisit, 'token' | 'business' | 'customerName'>,
  data: unknown,
): string {
  const statement = data as StatementData;
  const sections = statement.currencies
    .map((c) => {
      const money = (amount: number) => esc(formatMoney(amount, c.currency));
      const rows = c.lines
        .map(
          (line) =>
            `<tr><td><span class="note">${esc(shortDayInWords(line.date))}</span><br>${esc(line.description)}</td><td class="amount">${money(line.amount)}<br><span class="note">${money(line.balance)}</span></td></tr>`,
        )
        .join('');
      const next = c.nextDue
        ? `<dt>Next due</dt><dd>${money(c.nextDue.amount)} on ${esc(dayInWords(c.nextDue.date))}</dd>`
        : '';
      return `<h2>${esc(c.currency)}</h2>
<dl><dt>Opening balance</dt><dd>${money(c.openingBalance)}</dd><dt>Closing balance</dt><dd><strong>${money(c.closingBalance)}</strong></dd><dt>Overdue</dt><dd>${money(c.overdue.total)}</dd>${next}</dl>
<table><caption>${esc(c.currency)} charges and payments</caption><thead><tr><th scope="col">Date and what</th><th scope="col" class="amount">Amount<br><span class="note">balance after</span></th></tr></thead><tbody>${rows || '<tr><td colspan="2">Nothing in this period.</td></tr>'}</tbody></table>`;
    })
    .join('\n');
  return portalPage(
    visit.business,
    'Statement',
    `<h1>Statement</h1>
<p>${esc(visit.customerName)}, ${esc(dayInWords(statement.from))} to ${esc(dayInWords(statement.to))}.</p>
${sections || '<p>Nothing to show yet.</p>'}
<div class="actions"><a class="button" href="/c/${esc(visit.token)}/statement.pdf">Download PDF</a><a class="button decline" href="/c/${esc(visit.token)}">Back</a></div>`,
  );
}
