import type { DbOrTrx } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { randomToken, sha256 } from '../../lib/link-tokens.js';
import { publicUrl } from '../../lib/public-url.js';
import type { Tenant } from '../../lib/tenant.js';
import * as repo from './portal.repository.js';
import type { PortalLinksTable } from './portal.table.js';

export const PORTAL_TOKEN_PREFIX = 'cp';

/** A new link to a customer's page, in the caller's transaction: its row, and its URL (in this answer alone). */
export async function mintPortalLink(
  db: DbOrTrx,
  tenant: Tenant,
  customerId: string,
  expiresAt: string,
): Promise<{ row: PortalLinksTable; url: string }> {
  const at = tenant.clock.now();
  const token = randomToken(PORTAL_TOKEN_PREFIX);
  const row: PortalLinksTable = {
    id: newId('portalLink', at),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    customer_id: customerId,
    token_hash: sha256(token),
    expires_at: expiresAt,
    revoked_at: null,
    created_at: at.toISOString(),
    last_opened_at: null,
  };
  await repo.insert(db, row);
  return { row, url: `${publicUrl()}/c/${token}` };
}
