import { isIP } from 'node:net';
import path from 'node:path';
import { isTimeZone } from './lib/calendar.js';
import { isEmail } from './lib/email.js';
import { isCurrency } from './lib/money.js';
import { isCountry } from './lib/phone.js';
import { parseSecretKey } from './lib/secret-box.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** The workspace the first start makes on an empty database; what is not set keeps the defaults. */
export interface FirstWorkspace {
  name?: string;
  currency?: string;
  timezone?: string;
  country?: string;
  /** The first owner's e-mail; the first start prints a link to set their password. */
  ownerEmail?: string;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A postgres:// URL switches from the embedded SQLite database to PostgreSQL. */
  databaseUrl: string | undefined;
  publicUrl: string;
  /** Overrides the subscription plan's per-key limit when set. */
  rateLimitPerMinute: number | undefined;
  /** Shares rate-limit counters between nodes. */
  redisUrl: string | undefined;
  webhookAllowPrivate: boolean;
  /** `smtp://` or `smtps://`; live-mode e-mail goes through it. */
  smtpUrl: string | undefined;
  /** The From header of live-mode e-mail. */
  mailFrom: string;
  /** The HTTP message provider's API root for live-mode SMS and WhatsApp, without a trailing slash. */
  messageProviderUrl: string | undefined;
  messageProviderApiKey: string | undefined;
  /** The message provider's name as delivery receipts show it. */
  messageProviderName: string;
  /** Sender number or ID for live-mode SMS. */
  smsFrom: string | undefined;
  /** Sender number for live-mode WhatsApp. */
  whatsappFrom: string | undefined;
  logLevel: LogLevel;
  /** Run background jobs inside `serve`; turn off when dedicated `paytrack worker` processes run them. */
  embeddedWorker: boolean;
  /** Failed authentications one address may make per minute before it gets 429. */
  failedAuthPerMinute: number;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /**
   * Key of the HMAC that signs export download links. When unset, one is made once and kept in the database, so
   * links survive restarts and work on every node sharing it.
   */
  exportSigningSecret: string | undefined;
  /**
   * Records of due work a test clock's advance handles before it answers; past it the advance answers 202 and
   * the worker does the rest, this many at a time.
   */
  testClockAdvanceBudget: number;
  /**
   * The proxies in front of the service (load balancers), whose `X-Forwarded-For` gives the client's address in
   * per-address limits, consent evidence and logs: their addresses and CIDR ranges, or how many hops to trust.
   * False: none; the connection's address is the client's.
   */
  trustProxy: false | number | string[];
  /**
   * PAYTRACK_SECRET_KEY (32 bytes, base64) first, then PAYTRACK_SECRET_KEY_PREVIOUS while a rotation seals stored
   * secrets again: provider credentials are encrypted at rest under it. Empty when unset.
   */
  secretKeys: readonly Buffer[];
  /** Paystack's API root (PAYSTACK_API_URL), without a trailing slash. */
  paystackApiUrl: string;
  /** Stripe's API root (STRIPE_API_URL), without a trailing slash. */
  stripeApiUrl: string;
  /** Twilio's API root (TWILIO_API_URL), without a trailing slash. */
  twilioApiUrl: string;
  /** Africa's Talking's API root (AFRICASTALKING_API_URL), without a trailing slash. */
  africastalkingApiUrl: string;
  /** How long one call to a payment provider may take before it counts as timed out (PROVIDER_TIMEOUT_MS). */
  providerTimeoutMs: number;
  /**
   * From PAYTRACK_NAME, PAYTRACK_CURRENCY, PAYTRACK_TIMEZONE, PAYTRACK_COUNTRY and PAYTRACK_OWNER_EMAIL; read on the
   * first start only.
   */
  firstWorkspace: Readonly<FirstWorkspace>;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Measured on two shared cores, 100 daily schedules moved 13 days, both databases: a reminder stage made or sent
 * costs 4 to 10 ms, a collection attempt 2.3 to 3.7 ms, an obligation made or marked overdue 0.1 to 1.5 ms, a
 * rollup fold 0.02 to 0.05 ms. 200 records keep an advance's answer near a second at the dearest kind.
 */
const DEFAULT_TEST_CLOCK_ADVANCE_BUDGET = 200;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parseBoolean(name: string, raw: string | undefined, fallback: boolean, problems: string[]): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  problems.push(`${name} must be true or false, got '${raw}'`);
  return fallback;
}

function parsePositiveInt(name: string, raw: string | undefined, problems: string[]): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    problems.push(`${name} must be a positive whole number, got '${raw}'`);
    return undefined;
  }
  return Number(raw);
}

/** An address (`10.0.0.5`, `::1`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

function parseTrustProxy(raw: string | undefined, problems: string[]): Config['trustProxy'] {
  if (raw === undefined || raw.trim() === '') return false;
  const text = raw.trim();
  if (/^[0-9]+$/.test(text) && Number(text) >= 1 && Number.isSafeInteger(Number(text))) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.every(isAddressOrRange)) return entries;
  problems.push(
    `TRUST_PROXY must be a hop count (1 or more) or a comma-separated list of proxy addresses or CIDR ranges, got '${raw}'`,
  );
  return false;
}

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function parseFirstWorkspace(env: NodeJS.ProcessEnv, problems: string[]): FirstWorkspace {
  const first: FirstWorkspace = {};
  const { PAYTRACK_NAME: name, PAYTRACK_CURRENCY: currency, PAYTRACK_TIMEZONE: timezone } = env;
  const country = env.PAYTRACK_COUNTRY;
  const ownerEmail = env.PAYTRACK_OWNER_EMAIL;
  if (ownerEmail !== undefined && ownerEmail !== '') {
    if (isEmail(ownerEmail.trim())) first.ownerEmail = ownerEmail.trim().toLowerCase();
    else
      problems.push(
        `PAYTRACK_OWNER_EMAIL must be an e-mail address such as owner@example.com, got '${ownerEmail}'`,
      );
  }
  if (name !== undefined && name !== '') {
    if (name.trim() === '' || name.length > 200) {
      problems.push('PAYTRACK_NAME must be 1 to 200 characters, not only spaces');
    } else first.name = name.trim();
  }
  if (currency !== undefined && currency !== '') {
    if (isCurrency(currency)) first.currency = currency;
    else
      problems.push(
        `PAYTRACK_CURRENCY must be an ISO 4217 currency code such as NGN or USD, got '${currency}'`,
      );
  }
  if (timezone !== undefined && timezone !== '') {
    if (isTimeZone(timezone)) first.timezone = timezone;
    else problems.push(`PAYTRACK_TIMEZONE must be an IANA time zone such as Africa/Lagos, got '${timezone}'`);
  }
  if (country !== undefined && country !== '') {
    if (isCountry(country)) first.country = country;
    else
      problems.push(
        `PAYTRACK_COUNTRY must be an ISO 3166-1 alpha-2 country code in capitals such as NG, got '${country}'`,
      );
  }
  return Object.freeze(first);
}

/** Reads the environment once; every bad variable is reported together. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const problems: string[] = [];

  const port = parsePositiveInt('PORT', env.PORT, problems) ?? 3000;
  if (port > 65535) problems.push(`PORT must be at most 65535, got '${env.PORT}'`);

  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }

  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    problems.push(`PUBLIC_URL must be an absolute URL, got '${env.PUBLIC_URL}'`);
  }

  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    problems.push('REDIS_URL must be a redis:// or rediss:// URL');

  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl && !/^smtps?:\/\/[^/]/.test(smtpUrl))
    problems.push('SMTP_URL must be an smtp:// or smtps:// URL');

  const messageProviderUrl = env.MESSAGE_PROVIDER_URL?.replace(/\/+$/, '') || undefined;
  if (messageProviderUrl && !isHttpUrl(messageProviderUrl)) {
    problems.push('MESSAGE_PROVIDER_URL must be an http:// or https:// URL');
  }

  const secretKeys: Buffer[] = [];
  for (const name of ['PAYTRACK_SECRET_KEY', 'PAYTRACK_SECRET_KEY_PREVIOUS'] as const) {
    const raw = env[name];
    if (!raw) continue;
    const key = parseSecretKey(raw);
    if (key) secretKeys.push(key);
    else problems.push(`${name} must be 32 random bytes in base64 (make one with: openssl rand -base64 32)`);
  }
  if (env.PAYTRACK_SECRET_KEY_PREVIOUS && !env.PAYTRACK_SECRET_KEY) {
    problems.push('PAYTRACK_SECRET_KEY_PREVIOUS is only read beside a new PAYTRACK_SECRET_KEY');
  }
  const providerUrl = (name: string, fallback: string) => {
    const url = (env[name] || fallback).replace(/\/+$/, '');
    if (!isHttpUrl(url)) problems.push(`${name} must be an http:// or https:// URL`);
    return url;
  };

  const config: Config = {
    port,
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl,
    publicUrl,
    rateLimitPerMinute: parsePositiveInt('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, problems),
    redisUrl,
    webhookAllowPrivate: parseBoolean('WEBHOOK_ALLOW_PRIVATE', env.WEBHOOK_ALLOW_PRIVATE, false, problems),
    smtpUrl,
    mailFrom: env.MAIL_FROM || 'paytrack <no-reply@localhost>',
    messageProviderUrl,
    messageProviderApiKey: env.MESSAGE_PROVIDER_API_KEY || undefined,
    messageProviderName: env.MESSAGE_PROVIDER_NAME || 'messages',
    smsFrom: env.SMS_FROM || undefined,
    whatsappFrom: env.WHATSAPP_FROM || undefined,
    logLevel,
    embeddedWorker: parseBoolean('EMBEDDED_WORKER', env.EMBEDDED_WORKER, true, problems),
    failedAuthPerMinute:
      parsePositiveInt('FAILED_AUTH_PER_MINUTE', env.FAILED_AUTH_PER_MINUTE, problems) ?? 60,
    metricsToken: env.METRICS_TOKEN || undefined,
    exportSigningSecret: env.EXPORT_SIGNING_SECRET || undefined,
    testClockAdvanceBudget:
      parsePositiveInt('TEST_CLOCK_ADVANCE_BUDGET', env.TEST_CLOCK_ADVANCE_BUDGET, problems) ??
      DEFAULT_TEST_CLOCK_ADVANCE_BUDGET,
    trustProxy: parseTrustProxy(env.TRUST_PROXY, problems),
    firstWorkspace: parseFirstWorkspace(env, problems),
    secretKeys,
    paystackApiUrl: providerUrl('PAYSTACK_API_URL', 'https://api.paystack.co'),
    stripeApiUrl: providerUrl('STRIPE_API_URL', 'https://api.stripe.com'),
    twilioApiUrl: providerUrl('TWILIO_API_URL', 'https://api.twilio.com'),
    africastalkingApiUrl: providerUrl('AFRICASTALKING_API_URL', 'https://api.africastalking.com'),
    providerTimeoutMs: parsePositiveInt('PROVIDER_TIMEOUT_MS', env.PROVIDER_TIMEOUT_MS, problems) ?? 15_000,
  };
  if (config.metricsToken !== undefined && config.metricsToken.length < 16) {
    problems.push('METRICS_TOKEN must be at least 16 characters');
  }
  if (config.exportSigningSecret !== undefined && config.exportSigningSecret.length < 32) {
    problems.push('EXPORT_SIGNING_SECRET must be at least 32 characters');
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
