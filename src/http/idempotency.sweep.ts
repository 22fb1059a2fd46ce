import { inTenantGroup } from '../db/scoping.js';
import { earliest, type SweepDefinition } from '../jobs/sweeps.js';

/** Idempotency keys are kept 24 hours by their tenant's clock; then they are forgotten. */
export const idempotencyExpirySweep: SweepDefinition = {
  name: 'idempotency.expire',
  everyMs: 10 * 60_000,
  async run(ctx, scope) {
    const result = await ctx.db
      .deleteFrom('idempotency_keys')
      .where(inTenantGroup(scope))
      .where('expires_at', '<=', scope.now.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
  async nextDueAfter(ctx, scope) {
    const row = await ctx.db
      .selectFrom('idempotency_keys')
      .select((eb) => eb.fn.min('expires_at').as('next'))
      .where(inTenantGroup(scope))
      .where('expires_at', '>', scope.now.toISOString())
      .executeTakeFirst();
    return earliest(row?.next);
  },
};
