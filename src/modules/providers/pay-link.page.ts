import { contactHtml, escapeHtml, page } from '../../http/html-page.js';
import { dayInWords, instantInWords } from '../../lib/in-words.js';
import { formatMoney } from '../../lib/money.js';
import { amountText } from '../console/amount-input.js';
import { returnSentence } from './checkout.page.js';
import type { CheckoutReturn } from './checkout.start.js';
import type { PayLinkCheckoutView, PayLinkView } from './pay-link-checkout.service.js';

/** A pay link's page: its title as the heading, the business's name above the card, in its colour. */
export function payLinkPage(title: string, body: string, view?: PayLinkView): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>${body}`,
    view ? { masthead: view.business.name, brandColor: view.business.brandColor } : {},
  );
}

const money = (view: PayLinkView, amount: number) => escapeHtml(formatMoney(amount, view.currency));

const ASK = 'Questions about this payment? Contact';

const listOf = (rows: [string, string][]) =>
  `<dl>${rows.map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${value}</dd>`).join('')}</dl>`;

/** What is paid for, by whom and to whom, as terms and their (escaped) values: nothing else of the customer. */
function factsOf(view: PayLinkView): [string, string][] {
  return [
    ['For', escapeHtml(view.planTitle)],
    ['Customer', escapeHtml(view.payer)],
    ['Paid to', escapeHtml(view.business.name)],
  ];
}

const testNote = (view: PayLinkView) => (view.test ? '<p class="note">Test mode: no money moves.</p>' : '');

/**
 * The payer's form: a fixed amount and its Pay button, or an amount field with its bounds (and, after a bad
 * amount, what was wrong with it, the field keeping what was typed). Posted back to the page's own address.
 */
export function payForm(view: PayLinkView, problem?: { error: string; typed: string }): string {
  const until = `<p class="note">This link works until ${escapeHtml(instantInWords(view.expiresAt, view.business.timeZone))}.</p>`;
  if (!view.editable) {
    return `${testNote(view)}
${listOf([...factsOf(view), ['Amount', `<strong>${money(view, view.amount)}</strong>`]])}
<form method="post"><div class="actions"><button class="approve" type="submit">Pay ${money(view, view.amount)}</button></div></form>
${until}
${contactHtml(view.business, ASK)}`;
  }
  const value = problem ? problem.typed : amountText(view.amount, view.currency);
  const error = problem ? `<p class="error" id="amount-error">${escapeHtml(problem.error)}</p>` : '';
  const described = problem ? 'amount-hint amount-error' : 'amount-hint';
  return `${testNote(view)}
${listOf(factsOf(view))}
<form method="post">
<label for="amount">Amount to pay, in ${escapeHtml(view.currency)}</label>
<p class="note" id="amount-hint">Any amount from ${money(view, view.min)} to ${money(view, view.max)}; ${money(view, view.amount)} is asked.</p>
${error}<input id="amount" name="amount" type="text" inputmode="decimal" autocomplete="off" maxlength="40" value="${escapeHtml(value)}" aria-describedby="${described}"${problem ? ' aria-invalid="true"' : ''}>
<div class="actions"><button class="approve" type="submit">Pay</button></div>
</form>
${until}
${contactHtml(view.business, ASK)}`;
}

/** A link already paid: what was paid, to whom, and when. */
export function paidBody(view: PayLinkView): string {
  const paid = view.paid
    ? `<strong>${money(view, view.paid.amount)}</strong> to ${escapeHtml(view.business.name)} on ${escapeHtml(dayInWords(view.paid.on))}`
    : `to ${escapeHtml(view.business.name)}`;
  const receipt = view.paid?.receipt
    ? `<p>Your receipt: <a href="${escapeHtml(view.paid.receipt.path)}">${escapeHtml(view.paid.receipt.number)}</a></p>`
    : '';
  return `<p>This link was paid: ${paid}. Thank you. Nothing more is asked on it.</p>${receipt}
${listOf(factsOf(view).filter(([term]) => term !== 'Customer'))}
${contactHtml(view.business, ASK)}`;
}

/** Why a link takes nothing (410): expired, cancelled by the business, or nothing is owed any more. */
export const CLOSED_TITLES = {
  expired: 'Link expired',
  revoked: 'Link cancelled',
  settled: 'Nothing to pay',
} as const;

export function closedBody(view: PayLinkView, state: keyof typeof CLOSED_TITLES): string {
  const business = escapeHtml(view.business.name);
  const what = escapeHtml(view.planTitle);
  const text = {
    expired: `This link to pay ${business} for ${what} expired on ${escapeHtml(instantInWords(view.expiresAt, view.business.timeZone))}, so it takes no payment and nothing was paid.`,
    revoked: `${business} cancelled this link to pay for ${what}, so it takes no payment and nothing was paid.`,
    settled: `${business} asks for nothing more for ${what}, so this link takes no payment and nothing was paid.`,
  }[state];
  const lead = state === 'settled' ? 'If you think you owe it, contact' : 'For a new link, contact';
  return `<p>${text}</p>${contactHtml(view.business, lead)}`;
}

/**
 * The checkout is ready on another site (a provider's hosted page): a link to it, since a browser refuses to
 * follow a form's redirect to a site the page's policy does not name (`form-action 'self'`).
 */
export function continueBody(view: PayLinkView, provider: string, url: string, amount: number): string {
  return `<p>Your payment of <strong>${money(view, amount)}</strong> to ${escapeHtml(view.business.name)} is ready on ${escapeHtml(provider)}'s secure page, which asks for your card or bank details: ${escapeHtml(provider)} keeps them, not us.</p>
<div class="actions"><a class="button approve" href="${escapeHtml(url)}">Continue to ${escapeHtml(provider)}</a></div>
${contactHtml(view.business, ASK)}`;
}

/** The provider could not make the checkout page: nothing was paid; try again later. */
export function unavailableBody(view: PayLinkView, error: string): string {
  return `<p>Nothing was paid. ${escapeHtml(error)} Try again in a few minutes.</p>${contactHtml(view.business, ASK)}`;
}

// The test simulator's page for a pay link's checkout (at /checkout/<id>), standing in for the provider's.

/** What the simulator's page asks: the amount the payer chose on the link's page, for what, to whom. */
export function checkoutPayForm(view: PayLinkCheckoutView): string {
  return `<p class="note">Test mode: no money moves.</p>
${listOf([...factsOf(view), ['Amount', `<strong>${money(view, view.checkoutAmount)}</strong>`]])}
<form method="post"><div class="actions"><button class="approve" type="submit">Pay ${money(view, view.checkoutAmount)}</button></div></form>
${contactHtml(view.business, ASK)}`;
}

/** The simulator's pay button's answer. */
export function checkoutPaidBody(view: PayLinkCheckoutView): string {
  return `<p>Thank you: your payment of <strong>${money(view, view.checkoutAmount)}</strong> is recorded.</p>${listOf(
    factsOf(view).filter(([term]) => term !== 'Customer'),
  )}`;
}

/** A checkout whose payment is already recorded. */
export function checkoutAlreadyPaidBody(view: PayLinkCheckoutView): string {
  const on = view.paid ? ` on ${escapeHtml(dayInWords(view.paid.on))}` : '';
  return `<p>Your payment of <strong>${money(view, view.checkoutAmount)}</strong> to ${escapeHtml(view.business.name)} for ${escapeHtml(view.planTitle)} is recorded${on}. Nothing more is due on this link.</p>${contactHtml(view.business, ASK)}`;
}

/** Back from the provider's checkout page: what the provider said of the payment. */
export function returnBody(view: PayLinkCheckoutView, outcome: CheckoutReturn): string {
  const said = returnSentence(outcome, money(view, view.checkoutAmount), view.business.name);
  return `<p>${said}</p>${listOf(factsOf(view).filter(([term]) => term !== 'Customer'))}${contactHtml(view.business, ASK)}`;
}
