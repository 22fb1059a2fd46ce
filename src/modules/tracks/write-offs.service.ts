import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import type { Tenant } from '../../lib/tenant.js';
import { reverseWriteOff, writeOffOf, writeOffPlan } from '../../money/index.js';
import { recordEvent } from '../../outbox/outbox.js';
import { toApi } from './tracks.mapper.js';
import type { Track } from './tracks.schemas.js';
import type { WriteOffCreate } from './write-offs.schemas.js';

/**
 * Gives up part or all of a plan's balance (not a payment): a `plan.written_off` ledger entry, open obligations
 * written off latest due date first, the plan completed when nothing is left. Event `track.written_off`.
 */
export async function writeOffTrack(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: WriteOffCreate,
): Promise<Track> {
  return inTransaction(ctx, tenant, async (trx) => {
    const { track, writeOff } = await writeOffPlan(trx, tenant, id, input);
    const api = toApi(track);
    await recordEvent(trx, tenant, 'track.written_off', { ...api, writeOff: writeOffOf(writeOff) });
    return api;
  });
}

/** Undoes the plan's last write-off while nothing has moved its money since. Event `track.write_off_reversed`. */
export async function reverseTrackWriteOff(ctx: AppContext, tenant: Tenant, id: string): Promise<Track> {
  return inTransaction(ctx, tenant, async (trx) => {
    const { track, writeOff } = await reverseWriteOff(trx, tenant, id);
    const api = toApi(track);
    await recordEvent(trx, tenant, 'track.write_off_reversed', { ...api, writeOff: writeOffOf(writeOff) });
    return api;
  });
}
