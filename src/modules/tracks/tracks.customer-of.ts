import type { DbOrTrx } from '../../db/schema.js';

/** The customer of a plan, by the plan's id alone; undefined when there is no such plan. */
export async function customerOfTrack(db: DbOrTrx, trackId: string): Promise<string | undefined> {
  const track = await db
    .selectFrom('tracks')
    .select('customer_id')
    .where('id', '=', trackId)
    .executeTakeFirst();
  return track?.customer_id;
}
