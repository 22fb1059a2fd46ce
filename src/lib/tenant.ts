import type { Clock } from './clock.js';

export type Mode = 'test' | 'live';

/** Whose rows a query touches: one workspace, in test or live mode. Every query filters by both. */
export interface TenantRef {
  workspaceId: string;
  mode: Mode;
}

/** A tenant with its clock: system time in live mode, the workspace's test clock in test mode. */
export interface Tenant extends TenantRef {
  clock: Clock;
}
