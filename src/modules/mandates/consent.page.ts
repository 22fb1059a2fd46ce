import { createHash } from 'node:crypto';
import type { ClosedReason, ConsentView } from './consent.service.js';

/** The page's only style; the Content-Security-Policy allows exactly this text (by its hash) and no script. */
const STYLE = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
body { margin: 0; background: #f4f5f7; color: #1c1e21; line-height: 1.5; }
main { max-width: 34rem; margin: 0 auto; padding: 1.25rem; }
.card { background: #fff; border-radius: 12px; padding: 1.25rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
h1 { font-size: 1.35rem; margin: 0 0 .75rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem .75rem; margin: 1rem 0; }
dt { color: #5f6368; } dd { margin: 0; overflow-wrap: anywhere; }
.agreement { border-left: 4px solid #1a73e8; padding: .5rem .75rem; background: #f1f6fe; }
ul { padding-left: 1.1rem; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1.25rem; }
button { flex: 1 1 10rem; font: inherit; font-weight: 600; padding: .8rem 1rem; border-radius: 8px; border: 1px solid #1a73e8; cursor: pointer; }
.approve { background: #1a73e8; color: #fff; }
.decline { background: #fff; color: #1a73e8; }
.note { color: #5f6368; font-size: .9rem; }
`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** Headers of every consent page: nothing loads from elsewhere, no script runs, no site frames it. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'x-frame-options': 'DENY',
  // Not no-referrer: with it, browsers send `Origin: null` even on this page's own form posts.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main><div class="card">
${body}
</div></main></body>
</html>
`;
}

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
