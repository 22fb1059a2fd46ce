import { escapeHtml, page } from '../../http/html-page.js';
import type { ClosedReason, ConsentView } from './consent.service.js';

function details(view: ConsentView): string {
  const rows = [
    ['Business', view.business],
    ['Payer', view.payer],
    ['Provider', view.provider],
  ]
    .map(([term, value]) => `<dt>${escapeHtml(term as string)}</dt><dd>${escapeHtml(value as string)}</dd>`)
    .join('');
  const collections =
    view.collections.length === 0
      ? ''
      : `<p>First collections:</p><ul>${view.collections
          .map((c) => `<li>${escapeHtml(c.date)}: <strong>${escapeHtml(c.amount)}</strong></li>`)
          .join('')}</ul>`;
  return `<dl>${rows}</dl><p class="agreement">${escapeHtml(view.text)}</p>${collections}`;
}

/** The form the payer answers: approve or decline, posted back to the same address with the form token. */
export function consentForm(view: ConsentView, formToken: string, expiresAt: string): string {
  return page(
    `Authorise payments to ${view.business}`,
    `<h1>Authorise automatic payments to ${escapeHtml(view.business)}</h1>
${details(view)}
<form method="post">
<input type="hidden" name="form_token" value="${escapeHtml(formToken)}">
<div class="actions">
<button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="decline" type="submit" name="decision" value="decline">Decline</button>
</div>
</form>
<p class="note">This link works once and until ${escapeHtml(expiresAt.replace('T', ' ').slice(0, 16))} UTC.</p>`,
  );
}

export function answeredPage(status: 'active' | 'pending' | 'failed', view: ConsentView): string {
  if (status === 'failed') {
    return page(
      'Declined',
      `<h1>You declined</h1><p>${escapeHtml(view.business)} will not collect payments from you by automatic debit. Nothing was authorised.</p>`,
    );
  }
  const next =
    status === 'active'
      ? 'The authority is active.'
      : `${escapeHtml(view.provider)} still has to enable automatic debit for ${escapeHtml(view.business)}; it starts once it does.`;
  return page(
    'Approved',
    `<h1>Thank you, you approved</h1>${details(view)}<p>${next} You can withdraw it at any time by asking ${escapeHtml(view.business)}.</p>`,
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
    'This answer did not come from the current consent page. Open the link again and answer there. Nothing was changed.',
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

export type ClosedPage = keyof typeof CLOSED;

/** A page that explains why there is nothing to answer, with its HTTP status. */
export function closedPage(reason: ClosedPage): { status: number; html: string } {
  const [status, title, text] = CLOSED[reason];
  return { status, html: page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`) };
}
