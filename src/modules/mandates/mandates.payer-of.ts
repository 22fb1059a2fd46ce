import type { DbOrTrx } from '../../db/schema.js';

/** The payer of the newest mandate of a schedule in the workspace; undefined when it has none. */
export async function payerOfSchedule(
  db: DbOrTrx,
  workspaceId: string,
  scheduleId: string,
): Promise<string | undefined> {
  const mandate = await db
    .selectFrom('mandates')
    .select('payer_id')
    .where('schedule_id', '=', scheduleId)
    .where('workspace_id', '=', workspaceId)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return mandate?.payer_id;
}
