import type { AppContext } from '../context.js';

export type { EventSubscriber } from '../context.js';

import { forUpdateSkipLocked } from '../db/dialect.js';
import { inTransaction } from '../db/unit-of-work.js';

/** Events relayed in one transaction. */
export const RELAY_BATCH = 200;

/**
 * Hands the oldest events in the outbox to every subscriber and takes them out of it, in one transaction;
 * returns how many it handed on. Several workers can relay at once on PostgreSQL (they skip each other's rows).
 */
export async function relayEvents(ctx: AppContext, limit = RELAY_BATCH): Promise<number> {
  // A cheap look first: an idle relay must not take SQLite's write lock every time it polls.
  const any = await ctx.db.selectFrom('event_outbox').select('event_id').limit(1).executeTakeFirst();
  if (!any) return 0;
  return inTransaction(ctx, null, async (trx) => {
    const queued = await forUpdateSkipLocked(
      ctx.dialect,
      trx.selectFrom('event_outbox').select('event_id').orderBy('event_id').limit(limit),
    ).execute();
    if (queued.length === 0) return 0;
    const ids = queued.map((row) => row.event_id);
    const events = await trx.selectFrom('events').selectAll().where('id', 'in', ids).orderBy('id').execute();
    for (const subscriber of ctx.registry.subscribers) await subscriber.handle(trx, ctx, events);
    await trx.deleteFrom('event_outbox').where('event_id', 'in', ids).execute();
    return queued.length;
  });
}
