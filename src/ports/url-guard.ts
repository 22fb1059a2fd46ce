import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * SSRF guard for webhook URLs: a delivery reaches only global unicast addresses (ipaddr.js's range names), never
 * loopback, private, link-local (cloud metadata), multicast, reserved, documentation or tunnel ranges, unless
 * the server is configured to allow private targets.
 */

/** NAT64's well-known prefix 64:ff9b::/96 carries a public IPv4 address in its last 32 bits. */
function nat64Embedded(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const wellKnown = parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((part) => part === 0);
  if (!wellKnown) return null;
  const [high = 0, low = 0] = parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** True for any address a webhook must not reach; anything that is not an IP address is refused too. */
export function isBlockedAddress(address: string): boolean {
  const text = address.replace(/%.*$/, '');
  if (net.isIP(text) === 0) return true;
  // process() turns an IPv4-mapped IPv6 address into its IPv4 address.
  const parsed = ipaddr.process(text);
  const target = parsed.kind() === 'ipv6' ? (nat64Embedded(parsed as ipaddr.IPv6) ?? parsed) : parsed;
  return target.range() !== 'unicast';
}

/** `localhost` and its subdomains resolve to loopback by definition (RFC 6761), whatever DNS says. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

export type UrlCheck =
  | { ok: true; url: URL }
  | { ok: false; reason: 'invalid_url' | 'blocked_address' | 'unresolvable_host'; message: string };

export interface ResolvedAddress {
  address: string;
  family: number;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const DNS_TIMEOUT_MS = 5_000;

/** Every address of a host name, bounded in time so a slow resolver cannot hold a request. */
export const resolveAll: Resolver = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), DNS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([dns.promises.lookup(hostname, { all: true, verbatim: true }), timeout]);
  } finally {
    clearTimeout(timer);
  }
};

/** The form rules every webhook URL follows, checked without touching the network. */
export function parseWebhookUrl(raw: string): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid_url', message: 'must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'invalid_url', message: 'must be an http or https URL' };
  }
  if (url.username || url.password) {
    return { ok: false, reason: 'invalid_url', message: 'must not contain a user name or password' };
  }
  if (!url.hostname) return { ok: false, reason: 'invalid_url', message: 'must name a host' };
  return { ok: true, url };
}

const BLOCKED_MESSAGE = 'must not point at a private, loopback, link-local or reserved address';

/**
 * Checks the URL's form and, unless private targets are allowed, that every address its host
 * resolves to is public. Returns the verdict; never throws.
 */
export async function checkWebhookUrl(
  raw: string,
  options: { allowPrivate: boolean; resolve?: Resolver },
): Promise<UrlCheck> {
  const parsed = parseWebhookUrl(raw);
  if (!parsed.ok || options.allowPrivate) return parsed;
  const host = parsed.url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isLocalhostName(host)) return { ok: false, reason: 'blocked_address', message: BLOCKED_MESSAGE };
  if (net.isIP(host)) {
    return isBlockedAddress(host)
      ? { ok: false, reason: 'blocked_address', message: BLOCKED_MESSAGE }
      : parsed;
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.resolve ?? resolveAll)(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) {
    return { ok: false, reason: 'unresolvable_host', message: `host '${host}' could not be resolved` };
  }
  if (addresses.some((a) => isBlockedAddress(a.address))) {
    return { ok: false, reason: 'blocked_address', message: BLOCKED_MESSAGE };
  }
  return parsed;
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(hostname: string) {
    super(`refused to connect to '${hostname}': it resolves to a blocked address`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for sockets that refuses blocked addresses at connect time, so a host that re-resolves
 * to a private address after the check (DNS rebinding) is still not reached.
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (
      isLocalhostName(hostname) ||
      addresses.length === 0 ||
      addresses.some((a) => isBlockedAddress(a.address))
    ) {
      return callback(new BlockedAddressError(hostname), []);
    }
    const first = addresses[0] as dns.LookupAddress;
    if (options.all) return callback(null, addresses);
    return callback(null, first.address, first.family);
  });
}
