import { createHash } from 'node:crypto';
import { phoneInWords } from '../lib/in-words.js';

/** Pages for people (the consent page, the test-mode checkout): one look, strict headers, no script. */

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
.receipt-valid, .receipt-void, .promise, .problem { padding: .5rem .75rem; border-left: 4px solid; }
.receipt-valid, .promise { border-color: #137333; background: #e6f4ea; }
.receipt-void, .problem { border-color: #b3261e; background: #fce8e6; }
summary { cursor: pointer; font-weight: 600; color: #1558b0; padding: .75rem 0 .25rem; }
.masthead { background: #1a73e8; color: #fff; border-radius: 12px 12px 0 0; padding: .6rem 1.25rem; font-weight: 600; overflow-wrap: anywhere; }
.masthead + .card { border-radius: 0 0 12px 12px; }
h2 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
th, td { text-align: left; padding: .35rem .5rem .35rem 0; border-bottom: 1px solid #e3e5e8; vertical-align: top; }
td.amount, th.amount { text-align: right; padding-right: 0; white-space: nowrap; }
td.amount + td, th.amount + th { padding-left: .75rem; }
.nowrap { white-space: nowrap; }
caption { text-align: left; }
.contact { list-style: none; padding: 0; margin: .25rem 0 0; }
a { color: #1558b0; overflow-wrap: anywhere; }
label { display: block; font-weight: 600; margin-top: 1rem; }
.error { color: #b3261e; font-weight: 600; }
input { font: inherit; width: 100%; box-sizing: border-box; padding: .6rem .7rem; border: 1px solid #767b84; border-radius: 8px; margin-top: .25rem; }
a.button { flex: 1 1 10rem; display: inline-block; text-align: center; text-decoration: none; font-weight: 600; padding: .8rem 1rem; border-radius: 8px; border: 1px solid #1a73e8; }
@media (max-width: 400px) { main { padding: .75rem .5rem; } .card { padding: 1rem; } }
`;

const hashOf = (style: string) => `'sha256-${createHash('sha256').update(style).digest('base64')}'`;
const STYLE_HASH = hashOf(STYLE);

const BRAND_COLOR = /^#[0-9a-fA-F]{6}$/;

/** WCAG's relative luminance of an `#rrggbb` colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const c = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG's contrast ratio of two luminances. */
const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/** White or black, whichever contrasts more with an `#rrggbb` background (always at least 4.58:1), and the ratio. */
export function textOn(background: string): { color: '#fff' | '#000'; ratio: number } {
  const l = luminance(background);
  const [white, black] = [contrast(l, 1), contrast(l, 0)];
  return white >= black ? { color: '#fff', ratio: white } : { color: '#000', ratio: black };
}

/**
 * The style that puts a workspace's brand colour on the masthead and the main button, with white or black
 * text, whichever contrasts more (one of them always reaches 4.58:1, above WCAG AA's 4.5). The other button
 * keeps the brand colour for its text only where that still reads on white (4.5:1), and for its border where that
 * is still seen (3:1). Null for no colour or a malformed one.
 */
function brandStyle(color: string | null | undefined): string | null {
  if (!color || !BRAND_COLOR.test(color)) return null;
  const shade = color.toLowerCase();
  const text = textOn(shade).color;
  const onWhite = contrast(luminance(shade), 1);
  return `
.masthead, .approve { background: ${shade}; color: ${text}; border-color: ${shade}; }
.decline { color: ${onWhite >= 4.5 ? shade : '#1c1e21'}; border-color: ${onWhite >= 3 ? shade : '#5f6368'}; }
.agreement { border-left-color: ${shade}; }
`;
}

/**
 * Headers of every page for people: nothing loads from elsewhere, no script runs, no site frames it. The only
 * styles allowed are the page's own, by their hashes (with the brand's, when the page shows one).
 */
export function pageHeaders(brandColor?: string | null) {
  const brand = brandStyle(brandColor);
  const styles = brand ? `${STYLE_HASH} ${hashOf(brand)}` : STYLE_HASH;
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src ${styles}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    // Not no-referrer: with it, browsers send `Origin: null` even on this page's own form posts.
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  } as const;
}

/** Headers of a page without a brand. */
export const PAGE_HEADERS = pageHeaders(null);

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

/** Who a page speaks for: a band above the card with the business's name, in its colour when it has one. */
export interface PageLook {
  masthead?: string;
  brandColor?: string | null;
}

/** A whole page: the shared style, a card, the body given; serve it with `pageHeaders` of the same brand colour. */
export function page(title: string, body: string, look: PageLook = {}): string {
  const brand = brandStyle(look.brandColor);
  const masthead = look.masthead ? `<header class="masthead">${escapeHtml(look.masthead)}</header>\n` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>${brand ? `\n<style>${brand}</style>` : ''}
</head>
<body><main>${masthead}<div class="card">
${body}
</div></main></body>
</html>
`;
}

/**
 * Whether a post came from another site: the browser says so, or its Origin is neither PUBLIC_URL nor the host
 * it was sent to. An opaque origin ("null") proves nothing either way; the form token still has to match.
 */
export function isCrossSitePost(
  headers: Record<string, string | string[] | undefined>,
  publicUrl: string,
): boolean {
  if (headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = headers.origin;
  if (typeof origin !== 'string' || origin === 'null') return false;
  try {
    return origin !== new URL(publicUrl).origin && new URL(origin).host !== headers.host;
  } catch {
    return true;
  }
}

/** How payers reach a business: its support e-mail and phone, when it gave them. */
export interface BusinessContact {
  name: string;
  supportEmail: string | null;
  supportPhone: string | null;
}

/**
 * A paragraph that sends the payer to the business (`lead` names why, e.g. "To stop these payments, contact"),
 * with its e-mail and phone as links when it has them.
 */
export function contactHtml(business: BusinessContact, lead: string): string {
  const ways = [
    business.supportEmail
      ? `<li>E-mail: <a href="mailto:${escapeHtml(business.supportEmail)}">${escapeHtml(business.supportEmail)}</a></li>`
      : '',
    business.supportPhone
      ? `<li>Phone: <a href="tel:${escapeHtml(business.supportPhone)}">${escapeHtml(phoneInWords(business.supportPhone))}</a></li>`
      : '',
  ].join('');
  const who = `${escapeHtml(lead)} ${escapeHtml(business.name)}`;
  return ways ? `<p>${who}:</p><ul class="contact">${ways}</ul>` : `<p>${who}.</p>`;
}
