import type { DbOrTrx } from '../../db/schema.js';
import type { TenantRef } from '../../lib/tenant.js';
import type { PromisesTable } from './collections.table.js';
import * as repo from './promises.repository.js';

/** What a message says of an open promise. */
export type OpenPromise = Pick<PromisesTable, 'id' | 'amount' | 'currency' | 'date' | 'obligation_id'>;

/**
 * The open promise a message about a plan (or one of its obligations) may mention: the plan's open promise, when
 * it is on the whole plan or on that obligation (or when the message names no obligation).
 */
export async function openPromiseCovering(
  db: DbOrTrx,
  tenant: TenantRef,
  about: { trackId: string | null; obligationId: string | null },
): Promise<OpenPromise | undefined> {
  if (about.trackId === null) return undefined;
  const open = await repo.openOfTrack(db, tenant, about.trackId);
  if (!open) return undefined;
  if (about.obligationId && open.obligation_id && open.obligation_id !== about.obligationId) return undefined;
  return open;
}
