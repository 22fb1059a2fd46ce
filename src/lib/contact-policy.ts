import { DEFAULT_QUIET_HOURS, type QuietHours } from './calendar.js';

export type ContactChannel = 'sms' | 'whatsapp' | 'email';
const CHANNELS: readonly ContactChannel[] = ['sms', 'whatsapp', 'email'];

/**
 * How a workspace lets paytrack contact its customers on its own: not in quiet hours (the customer's time zone,
 * else the workspace's), at most `maxPerDay` and `maxPerWeek` automatic messages per customer, on the first of
 * `channels` the customer can be reached on.
 */
export interface ContactPolicy {
  quietHours: QuietHours;
  maxPerDay: number;
  maxPerWeek: number;
  channels: ContactChannel[];
}

export const DEFAULT_CONTACT_POLICY: ContactPolicy = {
  quietHours: DEFAULT_QUIET_HOURS,
  maxPerDay: 1,
  maxPerWeek: 3,
  channels: ['sms', 'whatsapp', 'email'],
};

/** A change to the policy: what is given replaces, what is left out stays. */
export interface ContactPolicyChange {
  quietHours?: QuietHours;
  maxPerDay?: number;
  maxPerWeek?: number;
  channels?: string[];
}

const TIME = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** The stored policy (JSON, or null for the defaults) as it applies. */
export function contactPolicyOf(stored: string | null): ContactPolicy {
  return stored === null
    ? DEFAULT_CONTACT_POLICY
    : { ...DEFAULT_CONTACT_POLICY, ...(JSON.parse(stored) as ContactPolicy) };
}

/** The policy after a change, or what is wrong with the change (field paths as the API names them). */
export function changeContactPolicy(
  current: ContactPolicy,
  change: ContactPolicyChange,
): { policy: ContactPolicy } | { problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const policy: ContactPolicy = { ...current, ...change, channels: current.channels } as ContactPolicy;
  if (change.quietHours !== undefined) {
    for (const end of ['start', 'end'] as const) {
      if (!TIME.test(change.quietHours[end] ?? ''))
        problems[`contactPolicy.quietHours.${end}`] = 'must be a time HH:MM, such as 21:00';
    }
  }
  for (const cap of ['maxPerDay', 'maxPerWeek'] as const) {
    const value = change[cap];
    if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > 100)) {
      problems[`contactPolicy.${cap}`] = 'must be a whole number from 0 to 100';
    }
  }
  if (policy.maxPerDay > policy.maxPerWeek && !problems['contactPolicy.maxPerDay']) {
    problems['contactPolicy.maxPerWeek'] = `must be at least maxPerDay (${policy.maxPerDay})`;
  }
  if (change.channels !== undefined) {
    const unknown = change.channels.filter((c) => !(CHANNELS as readonly string[]).includes(c));
    if (
      change.channels.length === 0 ||
      unknown.length > 0 ||
      new Set(change.channels).size !== change.channels.length
    ) {
      problems['contactPolicy.channels'] =
        'must list sms, whatsapp and email, each at most once, in the order to try them';
    } else {
      policy.channels = change.channels as ContactChannel[];
    }
  }
  return Object.keys(problems).length > 0 ? { problems } : { policy };
}
