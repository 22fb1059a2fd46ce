import { loadTenant } from '../../clock/tenant-clocks.js';
import type { EventSubscriber } from '../../outbox/relay.js';
import { keepIfPaid } from './promises.service.js';

/** Events after which a plan's money may have kept its open promise, and where they name the plan. */
const PLAN_OF: Record<string, (data: Record<string, unknown>) => unknown> = {
  'payment.recorded': (data) => data.trackId,
  'payment.applied': (data) => data.trackId,
  'track.updated': (data) => data.id,
  'track.completed': (data) => data.id,
};

/** Marks a plan's open promise kept as soon as money on the plan keeps it (the fall-due sweep decides the rest). */
export const promisesKept: EventSubscriber = {
  name: 'promises-kept',
  async handle(trx, ctx, events) {
    const plans = new Map<string, { workspaceId: string; mode: (typeof events)[number]['mode'] }>();
    for (const event of events) {
      const planOf = PLAN_OF[event.type];
      if (!planOf) continue;
      const trackId = planOf(JSON.parse(event.data) as Record<string, unknown>);
      if (typeof trackId === 'string')
        plans.set(trackId, { workspaceId: event.workspace_id, mode: event.mode });
    }
    for (const [trackId, ref] of plans) {
      await keepIfPaid(trx, await loadTenant(trx, ctx.clock, ref), trackId);
    }
  },
};
