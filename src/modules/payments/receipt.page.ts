import { contactHtml, escapeHtml, page } from '../../http/html-page.js';
import { dayInWords } from '../../lib/in-words.js';
import { formatMoney } from '../../lib/money.js';
import { methodInWords } from './payment-methods.js';
import type { ReceiptView } from './receipt.view.js';

/** Whether the receipt still stands, in a sentence for its reader. */
export function standingInWords(view: ReceiptView): string {
  const on = view.endedOn ? ` on ${dayInWords(view.endedOn)}` : '';
  if (view.standing === 'refunded')
    return `Refunded${on}: this payment was returned to the payer and no longer counts.`;
  if (view.standing === 'reversed') {
    const why = view.reversalReason ? ` (${view.reversalReason})` : '';
    return `Reversed${on}${why}: ${view.business.name} no longer counts this payment.`;
  }
  return `Valid: ${view.business.name} recorded this payment.`;
}

/** The receipt's facts, as terms and their values (plain text), in the order a receipt prints them. */
export function receiptFacts(view: ReceiptView): [string, string][] {
  const money = (amount: number) => formatMoney(amount, view.currency);
  const rows: [string, string | null][] = [
    ['Receipt', view.number],
    ['Amount', money(view.amount)],
    ['Paid on', dayInWords(view.paidOn)],
    ['Paid to', view.business.name],
    ['Paid by', view.customer],
    ['For', view.planTitle],
    ['Method', methodInWords(view.method)],
    ['Reference', view.reference],
    ['Balance after', view.balanceAfter === null ? null : money(view.balanceAfter)],
    ['Verification code', view.code],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== null);
}

/** The public page of a receipt: its facts, whether it stands, and its PDF. */
export function receiptPage(view: ReceiptView): string {
  const shown: Record<string, (value: string) => string> = {
    Amount: (value) => `<strong>${escapeHtml(value)}</strong>`,
    'Verification code': (value) => `<code>${escapeHtml(value)}</code>`,
  };
  const facts = receiptFacts(view)
    .map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${(shown[term] ?? escapeHtml)(value)}</dd>`)
    .join('');
  const standing = view.standing === 'valid' ? 'receipt-valid' : 'receipt-void';
  return page(
    `Receipt ${view.number}`,
    `<h1>Receipt ${escapeHtml(view.number)}</h1>
${view.test ? '<p class="note">Test mode: no money moved.</p>' : ''}
<p class="${standing}" role="status"><strong>${escapeHtml(standingInWords(view))}</strong></p>
<dl>${facts}</dl>
<div class="actions"><a class="button" href="/r/${escapeHtml(view.linkCode)}/pdf">Download the PDF</a></div>
${contactHtml(view.business, 'Questions about this receipt? Contact')}`,
    { masthead: view.business.name, brandColor: view.business.brandColor },
  );
}

export const unknownReceiptPage = () =>
  page(
    'Receipt not found',
    '<h1>Receipt not found</h1><p>No receipt has this code. Check the code printed on the receipt, or ask the business that gave it.</p>',
  );
