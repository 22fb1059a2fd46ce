import { contactHtml, escapeHtml, page } from '../../http/html-page.js';
import { instantInWords } from '../../lib/in-words.js';
import type { BusinessCard } from '../workspaces/workspaces.service.js';
import type { AuthorizeStep, ClosedReason, ConsentView } from './consent.service.js';

/** A page of the business: its name above the card, in its colour. */
const pageOf = (business: BusinessCard, title: string, body: string) =>
  page(title, body, { masthead: business.name, brandColor: business.brandColor });

function facts(view: ConsentView): string {
  const rows: [string, string | null][] = [
    ['Business', view.business.name],
    ['Payer', view.payer],
    ['For', view.planTitle],
    ['Paid through', view.provider],
  ];
  return `<dl>${rows
    .filter((row): row is [string, string] => row[1] !== null)
    .map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('')}</dl>`;
}

/** Each collection, as a table of dates and amounts (the first and last of a long one). */
function collections(view: ConsentView): string {
  if (view.collections.length === 0) return '';
  const row = (c: { date: string; amount: string }) =>
    `<tr><td>${escapeHtml(c.date)}</td><td class="amount">${escapeHtml(c.amount)}</td></tr>`;
  const rows = view.collections.map((c, i) => {
    if (view.more && i === view.more.after) {
      return `<tr><td colspan="2">… ${view.more.count} more payments …</td></tr>${row(c)}`;
    }
    return row(c);
  });
  const caption = view.openEnded ? 'The first payments (they go on until cancelled)' : 'Each payment';
  return `<table><caption class="note">${escapeHtml(caption)}</caption><thead><tr><th scope="col">Date</th><th scope="col" class="amount">Amount</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The agreement the payer answers, then the facts and the collections behind it. */
function terms(view: ConsentView): string {
  return `<p class="agreement">${escapeHtml(view.text)}</p>${facts(view)}${collections(view)}`;
}

const ASK = 'Questions about these payments? Contact';

/** The form the payer answers: approve or decline, posted back to the same address with the form token. */
export function consentForm(view: ConsentView, formToken: string, expiresAt: string): string {
  const business = view.business;
  return pageOf(
    business,
    `Authorise payments to ${business.name}`,
    `<h1>Authorise automatic payments to ${escapeHtml(business.name)}</h1>
${terms(view)}
<form method="post">
<input type="hidden" name="form_token" value="${escapeHtml(formToken)}">
<div class="actions">
<button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="decline" type="submit" name="decision" value="decline">Decline</button>
</div>
</form>
<p class="note">This link works once, until ${escapeHtml(instantInWords(expiresAt, business.timeZone))}.</p>
${contactHtml(business, ASK)}`,
  );
}

/** What comes next once approved: the first collection, when and how much. */
function nextCollection(view: ConsentView, active: boolean): string {
  const next = view.next;
  const provider = escapeHtml(view.provider);
  const business = escapeHtml(view.business.name);
  const start = active
    ? ''
    : `${provider} still has to enable automatic debit for ${business}; collections start once it does. `;
  if (!next)
    return `<p>${start}${business} will collect the amounts agreed with you through ${provider}.</p>`;
  const first = next.due
    ? `The first payment, <strong>${escapeHtml(next.amount)}</strong>, was due on ${escapeHtml(next.date)}, so it is collected ${active ? 'right away' : 'as soon as collections start'}`
    : `The first payment, <strong>${escapeHtml(next.amount)}</strong>, will be collected on ${escapeHtml(next.date)}`;
  const rest = view.collections.length > 1 || view.openEnded ? ', and each of the others on its date' : '';
  return `<p>${start}${first} from your account through ${provider}${rest}.</p>`;
}

export function answeredPage(status: 'active' | 'pending' | 'failed', view: ConsentView): string {
  const business = view.business;
  const name = escapeHtml(business.name);
  if (status === 'failed') {
    const still = view.next
      ? `<p>What you owe is still due: the next payment, <strong>${escapeHtml(view.next.amount)}</strong>, on ${escapeHtml(view.next.date)}.</p>`
      : '';
    return pageOf(
      business,
      'Declined',
      `<h1>You declined</h1><p>${name} will not collect payments from you by automatic debit. Nothing was authorised and nothing will be taken from your account.</p>${still}${contactHtml(business, 'To pay another way, or for a new link if you change your mind, contact')}`,
    );
  }
  return pageOf(
    business,
    'Approved',
    `<h1>You approved automatic payments to ${name}</h1>
<h2>What happens next</h2>${nextCollection(view, status === 'active')}
${contactHtml(business, 'You can withdraw this authority at any time. To stop these payments, or if anything is wrong, contact')}
<h2>What you approved</h2>${terms(view)}`,
  );
}

const CLOSED: Record<
  ClosedReason | 'forged' | 'rate_limited' | 'bad_request' | 'error',
  [number, string, string]
> = {
  unknown: [
    404,
    'Link not found',
    'This consent link is not valid. Check that you opened the whole link you were sent.',
  ],
  used: [
    410,
    'Link already used',
    'This consent link has already been answered, so it cannot be used again. Nothing was changed.',
  ],
  expired: [
    410,
    'Link expired',
    'This consent link has expired. Ask the business for a new one. Nothing was changed.',
  ],
  forged: [
    403,
    'Page out of date',
    'This answer does not match the consent page as it is now: it came from an older page or another site, or what will be collected has changed since. Open the link again and answer there. Nothing was changed.',
  ],
  rate_limited: [
    429,
    'Too many requests',
    'Too many requests came from your address. Wait a minute and open the link again.',
  ],
  bad_request: [
    400,
    'Answer not understood',
    'The answer could not be read. Open the link again and use the Approve or Decline button.',
  ],
  error: [
    500,
    'Something went wrong',
    'Your answer could not be recorded. Nothing was changed; please try again in a moment.',
  ],
};

/** What a used or expired link says, once the business that sent it is known. */
const FROM_BUSINESS: Record<'used' | 'expired', [string, string]> = {
  used: [
    'has already been answered, so it cannot be used again. Nothing was changed.',
    'To change your answer or ask about your payments, contact',
  ],
  expired: ['has expired. Nothing was changed.', 'For a new link, contact'],
};

export type ClosedPage = keyof typeof CLOSED;

/**
 * A page that explains why there is nothing to answer, with its HTTP status. A used or expired link names the
 * business that sent it and how to reach it; an unknown one stays neutral.
 */
export function closedPage(
  reason: ClosedPage,
  business: BusinessCard | null = null,
): { status: number; html: string } {
  const [status, title, text] = CLOSED[reason];
  if (business && (reason === 'used' || reason === 'expired')) {
    const [what, lead] = FROM_BUSINESS[reason];
    return {
      status,
      html: pageOf(
        business,
        title,
        `<h1>${escapeHtml(title)}</h1><p>This link to authorise automatic payments to ${escapeHtml(business.name)} ${escapeHtml(what)}</p>${contactHtml(business, lead)}`,
      ),
    };
  }
  return { status, html: page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`) };
}

const AUTHORIZE_LEAD: Record<AuthorizeStep, (provider: string) => [string, string]> = {
  continue: (provider) => [
    `Now authorise with ${provider}`,
    `Your approval is recorded. To finish, authorise these payments on ${provider}'s secure page: it asks for your bank or card details, which ${provider} keeps, not us.`,
  ],
  resume: (provider) => [
    `Finish authorising with ${provider}`,
    `You approved these payments, but ${provider} has not confirmed your authorisation yet. Continue where you left off.`,
  ],
  cancelled: (provider) => [
    'Authorisation not finished',
    `You left ${provider}'s page before authorising. Nothing will be taken from your account until you do. You can continue while this link works.`,
  ],
  waiting: (provider) => [
    `Waiting for ${provider}`,
    `${provider} has not confirmed your authorisation yet (a bank can take a little while). Nothing is collected until it does. If you did not finish on ${provider}'s page, continue there.`,
  ],
  refused: (provider) => [
    'Not authorised',
    `${provider} did not authorise these payments, so nothing will be taken from your account. To pay another way, or for a new link, contact the business.`,
  ],
  unreachable: (provider) => [
    `${provider} could not be reached`,
    `Your approval is recorded, but ${provider} did not answer just now. Open this link again in a few minutes to finish authorising.`,
  ],
};

/** The step between our consent and the provider's hosted authorization: a link to it (or why there is none). */
export function authorizePage(step: AuthorizeStep, view: ConsentView, url: string | null): string {
  const [title, lead] = AUTHORIZE_LEAD[step](view.provider);
  const link = url
    ? `<div class="actions"><a class="button approve" href="${escapeHtml(url)}">Continue to ${escapeHtml(view.provider)}</a></div>`
    : '';
  return pageOf(
    view.business,
    title,
    `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(lead)}</p>${link}
${contactHtml(view.business, ASK)}
<h2>What you approved</h2>${terms(view)}`,
  );
}
