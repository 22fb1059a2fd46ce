import type { AppContext } from '../context.js';

export type { EventSubscriber } from '../context.js';

import { forUpdateSkipLocked } from '../db/dialect.js';
import { inTransaction } from '../db/unit-of-work.js';

/** Events relayed in one transaction. */
export const RELAY_BATCH = 200;

/**
 * Hands the oldest undispatched events to every subscriber and marks them dispatched, in one transaction;
 * returns how many it handed on. Several workers can relay at once on PostgreSQL (they skip each other's rows).
 */
export async function relayEvents(ctx: AppContext, limit = RELAY_BATCH): Promise<number> {
  // A cheap look first: an idle relay must not take SQLite's write lock every time it polls.
  const any = await ctx.db
    .selectFrom('events')
    .select('id')
    .where('dispatched_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  if (!any) return 0;
  return inTransaction(ctx, null, async (trx) => {
    const events = await forUpdateSkipLocked(
      ctx.dialect,
      trx.selectFrom('events').selectAll().where('dispatched_at', 'is', null).orderBy('id').limit(limit),
    ).execute();
    if (events.length === 0) return 0;
    for (const subscriber of ctx.registry.subscribers) await subscriber.handle(trx, ctx, events);
    await trx
      .updateTable('events')
      .set({ dispatched_at: ctx.clock.now().toISOString() })
      .where(
        'id',
        'in',
        events.map((event) => event.id),
      )
      .execute();
    return events.length;
  });
}
