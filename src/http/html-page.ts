import { createHash } from 'node:crypto';

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

/** A whole page: the shared style, a card, the body given. */
export function page(title: string, body: string): string {
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
