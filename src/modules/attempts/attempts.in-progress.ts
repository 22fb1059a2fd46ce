import type { DbOrTrx } from '../../db/schema.js';

/** Whether a collection attempt for the obligation is being charged right now. */
export async function isBeingCharged(db: DbOrTrx, obligationId: string): Promise<boolean> {
  const row = await db
    .selectFrom('attempts')
    .select('id')
    .where('obligation_id', '=', obligationId)
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return row !== undefined;
}
