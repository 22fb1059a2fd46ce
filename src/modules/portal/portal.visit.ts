import type { FastifyInstance } from 'fastify';
import { tenantClock, testClockOffset } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import { type InternalApi, internalApi } from '../../http/internal-api.js';
import { isTokenOf, sha256 } from '../../lib/link-tokens.js';
import type { Tenant } from '../../lib/tenant.js';
import type { AuthContext } from '../api-keys/index.js';
import { parseGrant } from '../api-keys/scopes.js';
import { customerRowById } from '../customers/customers.service.js';
import { type BusinessCard, businessCard, findWorkspace } from '../workspaces/workspaces.service.js';
import { PORTAL_TOKEN_PREFIX } from './portal.links.js';
import { statusOf } from './portal.mapper.js';
import * as repo from './portal.repository.js';
import type { PortalLinksTable } from './portal.table.js';

/**
 * What a customer may do through their page: read (the page asks for their own records only), and of the
 * changes the two scopes below would allow, only those listed after (pay, revoke a mandate, promise to pay).
 */
const PAYER_GRANT = parseGrant(
  'customers:read,tracks:write,schedules:read,payments:read,ledger:read,mandates:write',
);
const PAYER_CHANGES: readonly { method: string; route: RegExp }[] = [
  { method: 'POST', route: /^\/api\/v1\/tracks\/:id\/pay-links$/ },
  { method: 'POST', route: /^\/api\/v1\/payment-mandates\/:id\/revoke$/ },
  { method: 'POST', route: /^\/api\/v1\/promises$/ },
];

/** A customer on their own page: the link, who they are, whose page it is, and the API as them. */
export interface PortalVisit {
  link: PortalLinksTable;
  token: string;
  customerId: string;
  customerName: string;
  business: BusinessCard;
  now: Date;
  test: boolean;
  /** The customer's workspace and mode, on its clock: for what the page streams itself (the statement's PDF). */
  tenant: Tenant;
  api: InternalApi;
}

export type PortalOpening =
  | { open: true; visit: PortalVisit }
  | { open: false; reason: 'unknown' }
  | { open: false; reason: 'expired' | 'revoked'; business: BusinessCard };

const OPENED_EVERY_MS = 60_000;

/**
 * Opens the page a token links to: unknown, expired or revoked links open nothing. The API is called as the
 * customer (actor `payer`), with reads and the changes the page offers, so every figure is the API's own.
 */
export async function openPortal(
  app: FastifyInstance,
  ctx: AppContext,
  token: string,
): Promise<PortalOpening> {
  if (!isTokenOf(PORTAL_TOKEN_PREFIX, token)) return { open: false, reason: 'unknown' };
  const link = await repo.findByTokenHash(ctx.db, sha256(token));
  if (!link) return { open: false, reason: 'unknown' };
  const [workspace, customer, business] = await Promise.all([
    findWorkspace(ctx.db, link.workspace_id),
    customerRowById(ctx.db, link.customer_id),
    businessCard(ctx.db, link.workspace_id),
  ]);
  if (!workspace || !customer) return { open: false, reason: 'unknown' };
  const offset = link.mode === 'test' ? await testClockOffset(ctx.db, link.workspace_id) : 0;
  const clock = tenantClock(ctx.clock, link.mode, offset);
  const now = clock.now();
  const status = statusOf(link, now.toISOString());
  if (status !== 'active') return { open: false, reason: status, business };
  await repo.markOpened(
    ctx.db,
    link.id,
    now.toISOString(),
    new Date(now.getTime() - OPENED_EVERY_MS).toISOString(),
  );
  const auth: AuthContext = {
    keyId: link.id,
    actor: { type: 'payer', id: customer.id },
    workspaceId: link.workspace_id,
    mode: link.mode,
    clock,
    grant: PAYER_GRANT,
    refuses: ({ method, route }) =>
      method === 'GET' || PAYER_CHANGES.some((c) => c.method === method && c.route.test(route))
        ? null
        : 'A customer page may only pay, promise to pay and revoke a mandate.',
    workspace: {
      defaultCurrency: workspace.default_currency,
      timezone: workspace.timezone,
      subscriptionPlan: workspace.subscription_plan,
    },
  };
  return {
    open: true,
    visit: {
      link,
      token,
      customerId: customer.id,
      customerName: customer.name,
      business,
      now,
      test: link.mode === 'test',
      tenant: { workspaceId: link.workspace_id, mode: link.mode, clock },
      api: internalApi(app, auth),
    },
  };
}
