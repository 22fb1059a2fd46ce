import dns from 'node:dns';
import net from 'node:net';

/**
 * SSRF guard for webhook URLs: a delivery must never reach loopback, private, link-local (cloud metadata),
 * multicast or reserved addresses unless the server is configured to allow them.
 */

/** IPv4 ranges no webhook may reach, as [network, prefix length]. */
const BLOCKED_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, includes the 169.254.169.254 metadata service
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast
];

function ipv4ToInt(address: string): number | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^[0-9]{1,3}$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

function inV4Range(value: number, network: string, prefix: number): boolean {
  const base = ipv4ToInt(network) ?? 0;
  const size = 2 ** (32 - prefix);
  return Math.floor(value / size) === Math.floor(base / size);
}

export function isBlockedIPv4(address: string): boolean {
  const value = ipv4ToInt(address);
  if (value === null) return true;
  return BLOCKED_V4.some(([network, prefix]) => inV4Range(value, network, prefix));
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped, embedded IPv4 allowed), or null. */
export function parseIPv6(address: string): number[] | null {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const v4 = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (v4?.[1]) {
    const value = ipv4ToInt(v4[1]);
    if (value === null) return null;
    const high = Math.floor(value / 65536).toString(16);
    const low = (value % 65536).toString(16);
    text = `${text.slice(0, -v4[1].length)}${high}:${low}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => Number.parseInt(g, 16));
}

function embeddedV4(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

export function isBlockedIPv6(address: string): boolean {
  const g = parseIPv6(address);
  if (!g) return true;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const first80Zero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (first80Zero && g5 === 0xffff) return isBlockedIPv4(embeddedV4(g6, g7)); // ::ffff:a.b.c.d mapped
  if (first80Zero && g5 === 0) return true; // ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d
  if (g0 === 0x64 && g1 === 0xff9b) {
    // NAT64: the well-known prefix reaches the embedded IPv4 address; the local-use 64:ff9b:1::/48 is private.
    return g2 !== 0 || g3 !== 0 || g4 !== 0 || g5 !== 0 || isBlockedIPv4(embeddedV4(g6, g7));
  }
  if (g0 === 0x2002) return isBlockedIPv4(embeddedV4(g1, g2)); // 6to4
  if (g0 === 0x2001 && g1 === 0x0db8) return true; // documentation
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return true; // deprecated site-local fec0::/10
  if ((g0 & 0xff00) === 0xff00) return true; // multicast ff00::/8
  return false;
}

/** True for any address a webhook must not reach; anything that is not an IP address is refused too. */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address.replace(/%.*$/, ''));
  if (family === 4) return isBlockedIPv4(address);
  if (family === 6) return isBlockedIPv6(address);
  return true;
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
