import type { DbOrTrx } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { randomToken, sha256 } from '../../lib/link-tokens.js';
import { publicUrl } from '../../lib/public-url.js';
import type { Tenant } from '../../lib/tenant.js';
import * as repo from './portal.repository.js';
import type { PortalLinksTable } from './portal.table.js';

export const PORTAL_TOKEN_PREFIX = 'cp';

/** Where a message that carries a customer page link has it: the link is made when the message is sent. */
export const CUSTOMER_PAGE_LINK = '{customer_page_link}';

/** How long a link made for an automatic reminder works. */
export const REMINDER_LINK_DAYS = 30;

const urlOf = (token: string) => `${publicUrl()}/c/${token}`;

/**
 * A new link to a customer's page, in the caller's transaction: its row, and its URL (in this answer alone).
 * `unsent`: a link a reminder will send, with no token until then (`tokenForSending`), so no URL yet.
 */
export async function mintPortalLink(
  db: DbOrTrx,
  tenant: Tenant,
  customerId: string,
  expiresAt: string,
  unsent = false,
): Promise<{ row: PortalLinksTable; url: string | null }> {
  const at = tenant.clock.now();
  const token = unsent ? null : randomToken(PORTAL_TOKEN_PREFIX);
  const row: PortalLinksTable = {
    id: newId('portalLink', at),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    customer_id: customerId,
    token_hash: token === null ? null : sha256(token),
    expires_at: expiresAt,
    revoked_at: null,
    created_at: at.toISOString(),
    last_opened_at: null,
  };
  await repo.insert(db, row);
  return { row, url: token === null ? null : urlOf(token) };
}

/**
 * The URL a message sends, made as it is sent so no token is ever stored: for the link the message names, a new
 * token (a retried message's earlier one stops working), while that link is neither revoked nor expired; else,
 * for an automatic reminder, a new link of its own. Null when the named link can no longer be sent.
 */
export async function linkForMessage(
  db: DbOrTrx,
  tenant: Tenant,
  message: { customerId: string; linkId: string | null },
): Promise<string | null> {
  const now = tenant.clock.now();
  if (message.linkId === null) {
    const expiresAt = new Date(now.getTime() + REMINDER_LINK_DAYS * 86_400_000).toISOString();
    return (await mintPortalLink(db, tenant, message.customerId, expiresAt)).url;
  }
  const token = randomToken(PORTAL_TOKEN_PREFIX);
  const set = await repo.setToken(db, tenant, message.linkId, sha256(token), now.toISOString());
  return set ? urlOf(token) : null;
}
