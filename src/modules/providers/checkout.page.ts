import { contactHtml, escapeHtml, page } from '../../http/html-page.js';
import { dayInWords } from '../../lib/in-words.js';
import { formatMoney } from '../../lib/money.js';
import type { CheckoutReturn, CheckoutView, Instalment } from './checkout.service.js';

/** A checkout page: its title as the heading, the business's name above the card, in its colour. */
export function checkoutPage(title: string, body: string, view?: CheckoutView): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>${body}`,
    view ? { masthead: view.business.name, brandColor: view.business.brandColor } : {},
  );
}

function instalmentInWords(instalment: Instalment): string {
  return instalment.of === null
    ? `payment ${instalment.number}`
    : `instalment ${instalment.number} of ${instalment.of}`;
}

/** What is paid for, in words: "Freezer, instalment 2 of 3", "Freezer", or for no plan "payment 5". */
function whatFor(view: CheckoutView): string {
  const instalment = view.instalment ? instalmentInWords(view.instalment) : null;
  if (view.planTitle) return instalment ? `${view.planTitle}, ${instalment}` : view.planTitle;
  return instalment ?? 'this payment';
}

const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

const money = (view: CheckoutView, amount: number) => escapeHtml(formatMoney(amount, view.currency));

/** What a payment is for, for whom, to whom and when it was due, as terms and their (escaped) values. */
function factsOf(view: CheckoutView): [string, string][] {
  const rows: [string, string | null][] = [
    ['For', escapeHtml(capitalised(whatFor(view)))],
    ['Customer', view.customer ? escapeHtml(view.customer) : null],
    ['Paid to', escapeHtml(view.business.name)],
    ['Due', escapeHtml(dayInWords(view.dueDate))],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== null);
}

const listOf = (rows: [string, string][]) =>
  `<dl>${rows.map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${value}</dd>`).join('')}</dl>`;

/** What the payer is asked to pay: for what, for whom, to whom, when it was due, and what is left of it. */
export function payForm(view: CheckoutView): string {
  const amounts: [string, string][] =
    view.paid > 0
      ? [
          ['Amount', money(view, view.asked)],
          ['Paid so far', money(view, view.paid)],
          ['Left to pay', `<strong>${money(view, view.amount)}</strong>`],
        ]
      : [['Amount', `<strong>${money(view, view.amount)}</strong>`]];
  return `<p class="note">Test mode: no money moves.</p>
${listOf([...factsOf(view), ...amounts])}
<form method="post"><div class="actions"><button class="approve" type="submit">Pay ${money(view, view.amount)}</button></div></form>
${contactHtml(view.business, 'Questions about this payment? Contact')}`;
}

/** The pay button's answer: what was paid, for what. */
export function paidBody(view: CheckoutView): string {
  return `<p>Thank you: your payment of <strong>${money(view, view.amount)}</strong> is recorded.</p>${listOf(factsOf(view))}`;
}

export function alreadyPaidBody(view: CheckoutView): string {
  const on = view.paidOn ? ` on ${escapeHtml(dayInWords(view.paidOn))}` : '';
  return `<p>${escapeHtml(capitalised(whatFor(view)))}, due ${escapeHtml(dayInWords(view.dueDate))}, was paid to ${escapeHtml(view.business.name)}${on}. Nothing more is due on this link.</p>${contactHtml(view.business, 'Questions about this payment? Contact')}`;
}

export function noLongerDueBody(view: CheckoutView): string {
  return `<p>${escapeHtml(view.business.name)} no longer asks for ${escapeHtml(whatFor(view))}, due ${escapeHtml(dayInWords(view.dueDate))}, so it cannot be paid here and nothing was paid.</p>${contactHtml(view.business, 'If you think you owe it, contact')}`;
}

export const RETURN_TITLES: Record<CheckoutReturn, string> = {
  paid: 'Payment received',
  processing: 'Payment in progress',
  not_paid: 'Not paid',
  unknown: 'Payment being confirmed',
};

/** What the provider said of a payment of `amount` (already formatted and escaped), in a sentence for the payer. */
export function returnSentence(outcome: CheckoutReturn, amount: string, business: string): string {
  const text: Record<CheckoutReturn, string> = {
    paid: `Thank you: your payment of <strong>${amount}</strong> was received. ${escapeHtml(business)} records it in a moment.`,
    processing: `Your payment of <strong>${amount}</strong> is being processed by your bank. It is recorded once it clears.`,
    not_paid: `Your payment of <strong>${amount}</strong> did not go through, and nothing was taken. You can open the payment link again to retry.`,
    unknown: `If you paid <strong>${amount}</strong>, it is recorded as soon as the payment provider confirms it.`,
  };
  return text[outcome];
}

/** Back from the provider's checkout page: what the provider said of the payment. */
export function returnBody(view: CheckoutView, outcome: CheckoutReturn): string {
  return `<p>${returnSentence(outcome, money(view, view.amount), view.business.name)}</p>${listOf(factsOf(view))}${contactHtml(view.business, 'Questions about this payment? Contact')}`;
}
