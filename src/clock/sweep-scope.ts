import type { Mode } from '../lib/tenant.js';

/**
 * A group of tenants that share one time: every live tenant, every test tenant whose clock was never moved,
 * or one workspace's test mode on its moved test clock.
 */
export interface SweepScope {
  mode: Mode;
  now: Date;
  /** Only this workspace. */
  workspaceId?: string;
  /** Every workspace of the mode but these (their test clocks were moved; each is a scope of its own). */
  exceptWorkspaceIds?: readonly string[];
  /**
   * The most records the caller wants this run to handle (what is left of a test clock advance's budget): a sweep
   * may stop once it has handled that many, and is run again. Without it, or in a sweep that does not read it,
   * a run handles everything due.
   */
  limit?: number;
}
