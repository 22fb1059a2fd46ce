import assert from 'node:assert/strict';
import type { TestApp } from './app.js';

/** The consent page's address, from a consent URL. */
export const pathOf = (consentUrl: string) => new URL(consentUrl).pathname;

export async function openPage(t: TestApp, path: string, remoteAddress = '192.0.2.10') {
  return t.app.inject({ method: 'GET', url: path, remoteAddress });
}

export function formTokenOf(html: string): string {
  const match = /name="form_token" value="([^"]+)"/.exec(html);
  assert.ok(match, 'the page has a form token');
  return match[1] as string;
}

export async function answer(
  t: TestApp,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
  remoteAddress = '192.0.2.10',
) {
  return t.app.inject({
    method: 'POST',
    url: path,
    remoteAddress,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': 'TestBrowser/1.0',
      ...headers,
    },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** Opens the page and answers it, as a payer would. */
export async function consent(t: TestApp, consentUrl: string, decision: 'approve' | 'decline') {
  const path = pathOf(consentUrl);
  const page = await openPage(t, path);
  assert.equal(page.statusCode, 200, page.body);
  return answer(t, path, { decision, form_token: formTokenOf(page.body) });
}
