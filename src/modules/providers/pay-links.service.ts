import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { localDate } from '../../lib/calendar.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { toInstant } from '../../lib/instant.js';
import { formatMoney } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
import { dueOfPlan } from '../schedules/index.js';
import { findTrack } from '../tracks/index.js';
import { businessCard } from '../workspaces/workspaces.service.js';
import { statusAt, toApi } from './pay-links.mapper.js';
import * as repo from './pay-links.repository.js';
import {
  PAY_LINK_DEFAULT_DAYS,
  PAY_LINK_MAX_DAYS,
  type PayLink,
  type PayLinkCreate,
  type PayLinkListQuery,
} from './pay-links.schemas.js';
import type { PayLinksTable } from './pay-links.table.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The token of a pay link's address: 24 random bytes, base64url (32 characters). Only its hash is kept. */
export const PAY_LINK_TOKEN = /^[A-Za-z0-9_-]{32}$/;

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** When the link stops working: as asked (after now, at most PAY_LINK_MAX_DAYS ahead), else in 30 days. */
function expiryOf(input: PayLinkCreate, at: Date): string {
  if (input.expires_at !== undefined && input.expiresAt !== undefined) {
    throw fieldError({ expiresAt: 'give expires_at or expiresAt, not both' });
  }
  const field = input.expires_at !== undefined ? 'expires_at' : 'expiresAt';
  const asked = input.expires_at ?? input.expiresAt;
  if (asked === undefined) return new Date(at.getTime() + PAY_LINK_DEFAULT_DAYS * DAY_MS).toISOString();
  const expiresAt = toInstant(asked, field);
  if (Date.parse(expiresAt) <= at.getTime()) {
    throw fieldError({ [field]: `must be in the future (it is now ${at.toISOString()})` });
  }
  if (Date.parse(expiresAt) > at.getTime() + PAY_LINK_MAX_DAYS * DAY_MS) {
    throw fieldError({ [field]: `must be at most ${PAY_LINK_MAX_DAYS} days from now` });
  }
  return expiresAt;
}

/**
 * A pay link for a plan (`POST /tracks/{id}/pay-links`, and server code that offers a payer "pay now"): the
 * plan must be active with a balance. `amount` defaults to what is due now (what the plan's open obligations due
 * up to today, in the workspace's zone, still ask), else the next instalment, else the balance; at most the
 * balance. `minAmount` defaults to `amount` (a fixed amount); below it the payer may choose any amount from it up
 * to the balance. It works until `expires_at`/`expiresAt` (default 30 days, at most 90). Answers the link with its
 * `url` (`PUBLIC_URL/pay/<token>`): only the token's hash is stored, so the URL is in this answer alone.
 * Emits `pay_link.created`.
 */
export async function createPayLink(
  ctx: AppContext,
  tenant: Tenant,
  trackId: string,
  input: PayLinkCreate,
): Promise<PayLink> {
  const at = tenant.clock.now();
  const now = at.toISOString();
  const expiresAt = expiryOf(input, at);
  const token = randomBytes(24).toString('base64url');
  // Mapped inside the transaction: what it returns is what an Idempotency-Key keeps as the response.
  return inTransaction(ctx, tenant, async (trx) => {
    const plan = await findTrack(trx, tenant, trackId);
    if (!plan) throw notFound('track', trackId);
    if (plan.status !== 'active' || plan.balance === 0) {
      throw invalidState('track', plan.status, 'create_pay_link');
    }
    const money = (amount: number) => `${amount} (${formatMoney(amount, plan.currency)})`;
    let amount = input.amount;
    let defaulted = '';
    if (amount === undefined) {
      const { timeZone } = await businessCard(trx, tenant.workspaceId);
      const due = await dueOfPlan(trx, plan.id, localDate(at, timeZone));
      amount = Math.min(plan.balance, due.dueNow || due.next?.amount || plan.balance);
      defaulted = due.dueNow > 0 ? ', what is due now' : due.next ? ', the next instalment' : ', the balance';
    } else if (amount > plan.balance) {
      throw fieldError({ amount: `must be at most the plan's balance, ${money(plan.balance)}` });
    }
    const minAmount = input.minAmount ?? amount;
    if (minAmount > amount) {
      throw fieldError({ minAmount: `must be at most amount, ${money(amount)}${defaulted}` });
    }
    const link: PayLinksTable = {
      id: newId('payLink', at),
      workspace_id: tenant.workspaceId,
      mode: tenant.mode,
      track_id: plan.id,
      customer_id: plan.customer_id,
      token_hash: tokenHash(token),
      amount,
      min_amount: minAmount,
      currency: plan.currency,
      status: 'active',
      expires_at: expiresAt,
      checkout_id: null,
      checkout_provider: null,
      checkout_provider_reference: null,
      payment_id: null,
      amount_paid: null,
      created_at: now,
      paid_at: null,
      revoked_at: null,
    };
    await repo.insert(trx, link);
    await recordEvent(trx, tenant, 'pay_link.created', toApi(link, now));
    return toApi(link, now, `${ctx.config.publicUrl}/pay/${token}`);
  });
}

export async function getPayLink(ctx: AppContext, tenant: Tenant, id: string): Promise<PayLink> {
  const row = await repo.findById(ctx.db, tenant, id);
  if (!row) throw notFound('pay link', id);
  return toApi(row, tenant.clock.now().toISOString());
}

/** A plan's pay links, newest first, with `status` as at now; an unknown plan is not_found. */
export async function listPayLinks(
  ctx: AppContext,
  tenant: Tenant,
  trackId: string,
  query: PayLinkListQuery,
): Promise<Page<PayLink>> {
  if (!(await findTrack(ctx.db, tenant, trackId))) throw notFound('track', trackId);
  const now = tenant.clock.now().toISOString();
  return paginate(
    query,
    'payLink',
    (limit, afterId) =>
      repo.listOfTrack(ctx.db, tenant, trackId, { limit, status: query.status, now }, afterId),
    (row) => toApi(row, now),
  );
}

/** Revokes an active link (`DELETE /pay-links/{id}`): its page takes nothing from then on. Emits `pay_link.revoked`. */
export async function revokePayLink(ctx: AppContext, tenant: Tenant, id: string): Promise<PayLink> {
  return inTransaction(ctx, tenant, async (trx) => {
    const now = tenant.clock.now().toISOString();
    const revoked = await repo.revoke(trx, tenant, id, now);
    if (!revoked) {
      const row = await repo.findById(trx, tenant, id);
      if (!row) throw notFound('pay link', id);
      throw invalidState('pay link', statusAt(row, now), 'revoke');
    }
    const link = toApi(revoked, now);
    await recordEvent(trx, tenant, 'pay_link.revoked', link, { status: 'active', revokedAt: null });
    return link;
  });
}
