import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { escapeHtml, textOn } from '../../http/html-page.js';
import type { Visit } from './console.visit.js';

/** The console's look: one style, allowed by its hash; scripts only from this server (the charts). */
const STYLE = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; --brand: #1a73e8; --on-brand: #fff; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f5f7; color: #1c1e21; line-height: 1.45; }
a { color: #1558b0; }
.skip { position: absolute; left: -999px; } .skip:focus { left: .5rem; top: .5rem; background: #fff; padding: .5rem; z-index: 2; }
header.top { background: var(--brand); color: var(--on-brand); padding: .5rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; }
header.top a, header.top .who { color: var(--on-brand); }
header.top .name { font-weight: 700; font-size: 1.05rem; }
header.top form { display: inline-flex; gap: .35rem; align-items: center; margin: 0; }
header.top select, header.top button { font: inherit; font-size: .85rem; padding: .25rem .5rem; border-radius: 6px; border: 1px solid #fff; background: #fff; color: #1c1e21; width: auto; margin: 0; flex: none; }
.testmode { background: #fff4e5; color: #5c3b00; border-bottom: 3px solid #e8a33d; padding: .35rem 1rem; font-weight: 600; }
nav.sections { background: #fff; border-bottom: 1px solid #dadce0; overflow-x: auto; white-space: nowrap; }
nav.sections ul { list-style: none; margin: 0 auto; padding: 0 .5rem; display: flex; max-width: 76rem; }
nav.sections a { display: block; padding: .65rem .75rem; text-decoration: none; color: #3c4043; border-bottom: 3px solid transparent; }
nav.sections a[aria-current="page"] { color: #1c1e21; font-weight: 700; border-bottom-color: #1c1e21; }
main { max-width: 76rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.4rem; margin: .25rem 0 1rem; } h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; } h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
.card { background: #fff; border-radius: 10px; padding: 1rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); margin-bottom: 1rem; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .75rem; }
.figure { background: #fff; border-radius: 10px; padding: .75rem 1rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
.figure .label { color: #5f6368; font-size: .85rem; } .figure .value { font-size: 1.3rem; font-weight: 700; }
.scroll { overflow-x: auto; position: relative; }
table { border-collapse: collapse; width: 100%; background: #fff; }
caption { text-align: left; font-weight: 600; padding: .4rem 0; }
th, td { text-align: left; padding: .45rem .5rem; border-bottom: 1px solid #e3e5e8; vertical-align: top; }
th { font-size: .85rem; color: #3c4043; background: #f8f9fa; }
.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.status { display: inline-block; padding: 0 .45rem; border-radius: 999px; border: 1px solid #5f6368; font-size: .8rem; white-space: nowrap; }
.status.bad { border-color: #b3261e; color: #8c1d18; } .status.good { border-color: #146c2e; color: #0f5223; } .status.wait { border-color: #8a5a00; color: #6b4500; }
.notice { background: #e6f4ea; border-left: 4px solid #146c2e; padding: .6rem .8rem; margin-bottom: 1rem; }
.problem { background: #fce8e6; border-left: 4px solid #b3261e; padding: .6rem .8rem; margin-bottom: 1rem; }
.note { color: #5f6368; font-size: .9rem; }
form.stack { display: grid; gap: .75rem; max-width: 34rem; }
form.inline { display: inline; margin: 0; }
label { font-weight: 600; font-size: .9rem; display: block; }
.hint { font-weight: 400; color: #5f6368; font-size: .85rem; }
.field-error { color: #8c1d18; font-size: .85rem; font-weight: 600; }
input, select, textarea { font: inherit; width: 100%; padding: .5rem .6rem; border: 1px solid #767b84; border-radius: 6px; margin-top: .2rem; background: #fff; }
input[type="checkbox"], input[type="radio"] { width: auto; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; margin-bottom: .75rem; }
.filters > * { flex: 1 1 10rem; } .filters button { flex: 0 0 auto; }
button, a.button { font: inherit; font-weight: 600; padding: .5rem .9rem; border-radius: 6px; border: 1px solid #1a5fb4; background: #1a5fb4; color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, a.button.secondary { background: #fff; color: #1a5fb4; }
button.danger { background: #a50e0e; border-color: #a50e0e; }
button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid #e8a33d; outline-offset: 2px; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; margin: 0; }
dl.facts dt { color: #5f6368; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.chart { width: 100%; height: 260px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
/* overview */ dl.figures { margin: 0 0 1rem; } dl.figures dd { margin: 0; overflow-wrap: break-word; } @media (min-width: 56rem) { dl.grid.figures { grid-template-columns: repeat(4, minmax(0, 1fr)); } } .figure .hint { display: block; } .charts { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 30rem), 1fr)); margin-bottom: 1.5rem; } .charts .wide { grid-column: 1 / -1; } figure.card { margin: 0; min-width: 0; } figure.card h3 { margin-top: 0; } .chart-box.chart { position: relative; margin-bottom: .75rem; overflow: hidden; } .chart-box.chart canvas { max-width: 100%; } details > summary { cursor: pointer; padding: .25rem 0; }
/* today */ .worklist { list-style: none; margin: 0; padding: 0; display: grid; gap: .75rem; grid-template-columns: repeat(auto-fill, minmax(min(100%, 20rem), 1fr)); } .work { margin: 0; } .work h3 { margin: 0 0 .25rem; font-size: 1.05rem; } .work p { margin: .2rem 0; } .work .owed { font-size: 1.05rem; }
/* customers */ .phone { display: inline-flex; flex-wrap: wrap; gap: 0 .75rem; } .phone a { white-space: nowrap; } .prewrap { white-space: pre-wrap; overflow-wrap: anywhere; } .filters.find > div:first-of-type { flex: 2 1 16rem; } .email { overflow-wrap: anywhere; } .sheet { position: relative; } .sheet > h2:first-child { margin-top: 0; } .sheet caption { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
/* plans */ fieldset.group { border: 1px solid #dadce0; border-radius: 8px; padding: .75rem; margin: 0; display: grid; gap: .75rem; min-width: 0; } fieldset.group legend { font-weight: 700; padding: 0 .25rem; } details.card > summary { cursor: pointer; font-weight: 600; } details.card[open] > summary { margin-bottom: .75rem; } .nowrap { white-space: nowrap; } .grid.figures { grid-template-columns: repeat(auto-fit, minmax(min(100%, 10rem), 1fr)); margin-bottom: 1rem; } .card > h3:first-child { margin-top: 0; } ul.tabs { list-style: none; display: flex; flex-wrap: wrap; gap: .4rem; padding: 0; margin: 0 0 .75rem; } ul.tabs a { display: inline-block; padding: .3rem .75rem; border: 1px solid #1a5fb4; border-radius: 999px; text-decoration: none; color: #1a5fb4; } ul.tabs a[aria-current="page"] { background: #1a5fb4; color: #fff; }
/* payments */ .check { display: flex; gap: .5rem; align-items: flex-start; } .check input { margin-top: .3rem; flex: none; } .check label { font-weight: 400; }
/* settings */ nav.settings-menu ul { list-style: none; margin: 0 0 1rem; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; } nav.settings-menu a[aria-current="page"] { font-weight: 700; color: #1c1e21; text-decoration: none; } nav.settings-menu ~ .scroll { margin-bottom: 1rem; } .settings-card > h2:first-child, .settings-card > h3:first-child { margin-top: 0; } input.secret { font-family: ui-monospace, Menlo, Consolas, monospace; background: #f8f9fa; } .wrap { overflow-wrap: anywhere; } a.endpoint { display: inline-block; min-width: 11rem; overflow-wrap: anywhere; } form.role-form { display: flex; gap: .35rem; align-items: center; } form.role-form select { width: auto; margin: 0; } fieldset { border: 1px solid #dadce0; border-radius: 6px; padding: .5rem .75rem; margin: 0; min-width: 0; } legend { font-weight: 600; font-size: .9rem; } label.choice { font-weight: 400; display: flex; gap: .4rem; align-items: center; margin: .25rem 0; } .scope-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); gap: .5rem .75rem; } .event-types { overflow-wrap: anywhere; font-size: .85rem; } details summary { cursor: pointer; font-weight: 600; font-size: .9rem; }
/* audit */ ol.audit .audit-entry h3 { overflow-wrap: anywhere; } ol.audit ul { margin: .3rem 0; padding-left: 1.1rem; overflow-wrap: anywhere; } ol.audit { grid-template-columns: 1fr; }
@media (max-width: 40rem) { main { padding: .6rem; } th, td { padding: .4rem .35rem; } .figure .value { font-size: 1.1rem; } }
`;

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const STYLE_HASH = hashOf(STYLE);
const BRAND = /^#[0-9a-fA-F]{6}$/;

function brandStyle(color: string | null): string | null {
  if (!color || !BRAND.test(color)) return null;
  return `:root { --brand: ${color.toLowerCase()}; --on-brand: ${textOn(color.toLowerCase()).color}; }`;
}

/** The console's headers: nothing from elsewhere, scripts from this server only, never framed, never cached. */
export function consoleHeaders(brandColor: string | null = null) {
  const brand = brandStyle(brandColor);
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src ${STYLE_HASH}${brand ? ` ${hashOf(brand)}` : ''}; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  } as const;
}

export type Section =
  | 'overview'
  | 'today'
  | 'customers'
  | 'plans'
  | 'payments'
  | 'audit'
  | 'settings'
  | 'none';

const SECTIONS: { section: Section; href: string; label: string; shown: (visit: Visit) => boolean }[] = [
  { section: 'overview', href: '/console', label: 'Overview', shown: () => true },
  { section: 'today', href: '/console/today', label: "Today's work", shown: () => true },
  { section: 'customers', href: '/console/customers', label: 'Customers', shown: () => true },
  { section: 'plans', href: '/console/plans', label: 'Plans', shown: () => true },
  { section: 'payments', href: '/console/payments', label: 'Payments', shown: () => true },
  { section: 'audit', href: '/console/audit', label: 'Audit trail', shown: (v) => v.can('see_audit') },
  { section: 'settings', href: '/console/settings', label: 'Settings', shown: (v) => v.can('see_settings') },
];

/** The hidden field every console form carries: what another site cannot know (see `formTokenOf`). */
export const tokenField = (visit: Visit) =>
  `<input type="hidden" name="form_token" value="${escapeHtml(visit.formToken)}">`;

function top(visit: Visit): string {
  const others = visit.workspaces.length > 1;
  const switcher = others
    ? `<form method="post" action="/console/switch">${tokenField(visit)}<label class="visually-hidden" for="switch-workspace">Workspace</label><select id="switch-workspace" name="workspace_id">${visit.workspaces
        .map(
          (w) =>
            `<option value="${escapeHtml(w.id)}"${w.id === visit.workspace.id ? ' selected' : ''}>${escapeHtml(w.name)}</option>`,
        )
        .join(
          '',
        )}</select><input type="hidden" name="mode" value="${visit.mode}"><button type="submit">Switch</button></form>`
    : '';
  const other = visit.mode === 'test' ? 'live' : 'test';
  return `<header class="top">
<span class="name">${escapeHtml(visit.workspace.name)}</span>
${switcher}
<form method="post" action="/console/switch">${tokenField(visit)}<input type="hidden" name="workspace_id" value="${escapeHtml(visit.workspace.id)}"><input type="hidden" name="mode" value="${other}"><button type="submit">${other === 'live' ? 'View live data' : 'View test data'}</button></form>
<span class="who">${escapeHtml(visit.person.name ?? visit.person.email)} · ${escapeHtml(visit.person.role)}</span>
<form method="post" action="/console/sign-out">${tokenField(visit)}<button type="submit">Sign out</button></form>
</header>${
    visit.mode === 'test'
      ? '\n<div class="testmode" role="status">Test mode: you are looking at test data. Nothing real is charged or sent.</div>'
      : ''
  }`;
}

export interface Frame {
  title: string;
  section: Section;
  body: string;
  /** Scripts of this server (under /console/assets/) the page needs: only the charts. */
  scripts?: readonly string[];
}

/** A whole console page: the bar with the workspace, mode and person, the sections, then the page's body. */
export function consolePage(visit: Visit, frame: Frame): string {
  const brand = brandStyle(visit.workspace.brandColor);
  const nav = SECTIONS.filter((s) => s.shown(visit))
    .map(
      (s) =>
        `<li><a href="${s.href}"${s.section === frame.section ? ' aria-current="page"' : ''}>${escapeHtml(s.label)}</a></li>`,
    )
    .join('');
  const scripts = (frame.scripts ?? [])
    .map((src) => `<script src="${escapeHtml(src)}" defer></script>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(frame.title)} · ${escapeHtml(visit.workspace.name)}${visit.mode === 'test' ? ' (test)' : ''}</title>
<style>${STYLE}</style>${brand ? `<style>${brand}</style>` : ''}${scripts}
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
${top(visit)}
<nav class="sections" aria-label="Sections"><ul>${nav}</ul></nav>
<main id="content">
<h1>${escapeHtml(frame.title)}</h1>
${frame.body}
</main>
</body>
</html>
`;
}

export function sendPage(reply: FastifyReply, visit: Visit, frame: Frame, status = 200) {
  return reply
    .code(status)
    .headers(consoleHeaders(visit.workspace.brandColor))
    .send(consolePage(visit, frame));
}
