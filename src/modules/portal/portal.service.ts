import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { localDate } from '../../lib/calendar.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { dayInWords } from '../../lib/in-words.js';
import { toInstant } from '../../lib/instant.js';
import type { Tenant } from '../../lib/tenant.js';
import { getCustomerRow } from '../customers/customers.service.js';
import { queueReminder, recipientOf } from '../reminders/reminders.service.js';
import { businessCard } from '../workspaces/workspaces.service.js';
import { CUSTOMER_PAGE_LINK, mintPortalLink } from './portal.links.js';
import { toApi } from './portal.mapper.js';
import * as repo from './portal.repository.js';
import {
  DEFAULT_LINK_DAYS,
  MAX_LINK_DAYS,
  type PortalLink,
  type PortalLinkCreate,
} from './portal.schemas.js';

const DAY_MS = 86_400_000;

function expiryOf(tenant: Tenant, requested: string | undefined): string {
  const now = tenant.clock.now().getTime();
  if (requested === undefined) return new Date(now + DEFAULT_LINK_DAYS * DAY_MS).toISOString();
  const at = toInstant(requested, 'expires_at');
  const ms = Date.parse(at);
  if (ms <= now) throw fieldError({ expires_at: 'must be in the future' });
  if (ms > now + MAX_LINK_DAYS * DAY_MS)
    throw fieldError({ expires_at: `must be at most ${MAX_LINK_DAYS} days ahead` });
  return at;
}

/**
 * A link to the customer's own page, with its URL in this answer alone (only its token's hash is kept); or, with
 * `send`, a link that a reminder sends the customer, both or neither, whose token is made when it is sent (so
 * no URL here: only the customer receives it).
 */
export async function createPortalLink(
  ctx: AppContext,
  tenant: Tenant,
  customerId: string,
  input: PortalLinkCreate,
): Promise<PortalLink> {
  const expiresAt = expiryOf(tenant, input.expires_at);
  const customer = await getCustomerRow(ctx.db, tenant, customerId);
  if (customer.status !== 'active') throw invalidState('customer', customer.status, 'create_portal_link');
  const channel = input.send;
  if (channel && !recipientOf(customer, channel)) {
    throw fieldError({
      send: `the customer has no ${channel === 'email' ? 'e-mail address' : 'phone number'} for ${channel}`,
    });
  }
  const now = tenant.clock.now().toISOString();
  if (!channel) {
    // Mapped inside the transaction: what it returns is what an Idempotency-Key keeps as the response.
    return inTransaction(ctx, tenant, async (trx) => {
      const made = await mintPortalLink(trx, tenant, customer.id, expiresAt);
      return toApi(made.row, now, { url: made.url, reminderId: null });
    });
  }
  const business = await businessCard(ctx.db, tenant.workspaceId);
  const until = dayInWords(localDate(expiresAt, business.timeZone));
  // Its token is made when the reminder sends it: only the customer ever holds this link.
  return inTransaction(ctx, tenant, async (trx) => {
    const made = await mintPortalLink(trx, tenant, customer.id, expiresAt, true);
    const reminder = await queueReminder(
      trx,
      tenant,
      {
        customerId: customer.id,
        channel,
        message: `${business.name}: see what you have paid and what is left, get receipts and pay here: ${CUSTOMER_PAGE_LINK} (until ${until}).`,
      },
      { portalLinkId: made.row.id },
    );
    return toApi(made.row, now, { url: null, reminderId: reminder.id });
  });
}

export async function listPortalLinks(
  ctx: AppContext,
  tenant: Tenant,
  customerId: string,
  query: { limit?: number; cursor?: string },
): Promise<Page<PortalLink>> {
  await getCustomerRow(ctx.db, tenant, customerId);
  const now = tenant.clock.now().toISOString();
  return paginate(
    query,
    'portalLink',
    (limit, afterId) => repo.listOfCustomer(ctx.db, tenant, customerId, limit, afterId),
    (row) => toApi(row, now),
  );
}

/** Revokes a link at once: its page answers that it was withdrawn. Revoking it again is refused. */
export async function revokePortalLink(ctx: AppContext, tenant: Tenant, id: string): Promise<PortalLink> {
  const now = tenant.clock.now().toISOString();
  const revoked = await repo.revoke(ctx.db, tenant, id, now);
  if (revoked) return toApi(revoked, now);
  const found = await repo.findById(ctx.db, tenant, id);
  if (!found) throw notFound('portal_link', id);
  throw invalidState('portal_link', 'revoked', 'revoke');
}
