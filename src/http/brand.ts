import { SERVER_VERSION } from '../version.js';

/** The paytrack wordmark with the server's version, for the docs page's top bar (no framework logo). */
export const WORDMARK_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="220" height="40" viewBox="0 0 220 40" role="img" aria-label="paytrack ${SERVER_VERSION}">
<rect x="0" y="4" width="32" height="32" rx="8" fill="#1a73e8"/>
<path d="M10 28V12h7a5 5 0 0 1 0 10h-7" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/>
<text x="42" y="27" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="21" font-weight="700" fill="#ffffff">paytrack</text>
<text x="156" y="27" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="14" fill="#c7d2fe">v${SERVER_VERSION}</text>
</svg>`;

/** The mark alone, as the docs page's icon. */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
<rect width="32" height="32" rx="8" fill="#1a73e8"/>
<path d="M10 26V10h7a5 5 0 0 1 0 10h-7" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/>
</svg>`;
