import type { PortalLink } from './portal.schemas.js';
import type { PortalLinksTable } from './portal.table.js';

export function statusOf(row: PortalLinksTable, now: string): PortalLink['status'] {
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at <= now ? 'expired' : 'active';
}

export function toApi(
  row: PortalLinksTable,
  now: string,
  made: { url: string | null; reminderId: string | null } | null = null,
): PortalLink {
  return {
    id: row.id,
    customerId: row.customer_id,
    url: made?.url ?? null,
    status: statusOf(row, now),
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastOpenedAt: row.last_opened_at,
    reminderId: made?.reminderId ?? null,
    createdAt: row.created_at,
  };
}
