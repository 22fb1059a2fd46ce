import type { Mode } from '../../lib/tenant.js';

/** A link to a customer's own page: only its token's hash is kept, so the link is in its creation answer alone. */
export interface PortalLinksTable {
  id: string;
  workspace_id: string;
  mode: Mode;
  customer_id: string;
  /** Null for a link a reminder sends until it is sent: its token is made then, and only its hash kept. */
  token_hash: string | null;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
  /** When the page was last opened through it; written at most once a minute. */
  last_opened_at: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    portal_links: PortalLinksTable;
  }
}
