import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-twilio-signature';

/** A form body's parameters by name; a name may repeat. */
export type FormParams = ReadonlyMap<string, readonly string[]>;

export function readForm(body: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(body)) {
    const values = params.get(name);
    if (values) values.push(value);
    else params.set(name, [value]);
  }
  return params;
}

/**
 * Twilio's request signature (Webhooks security guide): the full URL Twilio called, query included, followed by
 * each POST parameter sorted by name, name then value, no separators; HMAC-SHA1 keyed with the Auth Token, base64.
 * A repeated name contributes each distinct value in sorted order, as Twilio's Node SDK does.
 */
export function twilioSignature(authToken: string, url: string, params: FormParams): string {
  let data = url;
  for (const name of [...params.keys()].sort()) {
    for (const value of [...new Set(params.get(name))].sort()) data += name + value;
  }
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/**
 * The URL as Twilio may have signed it: Twilio's SDKs accept the signature over the URL with and without the
 * scheme's standard port, because Twilio's own signing is inconsistent about it.
 */
function urlVariants(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const variants = new Set<string>([url]);
  const withoutPort = new URL(parsed.href);
  withoutPort.port = '';
  variants.add(withoutPort.href);
  if (!parsed.port) {
    const standard = parsed.protocol === 'https:' ? '443' : '80';
    // URL normalises a standard port away, so it is spliced in by hand.
    variants.add(parsed.href.replace(parsed.host, `${parsed.hostname}:${standard}`));
  }
  return [...variants];
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** True when `given` is Twilio's signature of this URL and these parameters (constant-time compares). */
export function isTwilioSignature(
  authToken: string,
  url: string,
  params: FormParams,
  given: string,
): boolean {
  let valid = false;
  for (const variant of urlVariants(url)) {
    // Every variant is compared, so that the time taken does not say which one matched.
    if (sameText(twilioSignature(authToken, variant, params), given)) valid = true;
  }
  return valid;
}
