import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import type { DialectName } from '../../db/dialect.js';
import type { Trx } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { sha256 } from '../../lib/link-tokens.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
import { type AuthorizationState, ProviderCallError } from '../../ports/live-provider.js';
import { customerRow, payerEmailOf } from '../customers/customers.service.js';
import { type LiveProvider, liveProvider } from '../providers/adapters.service.js';
import { findScheduleRow } from '../schedules/index.js';
import { toApi } from './mandates.mapper.js';
import * as repo from './mandates.repository.js';
import { activate, defaultCurrencyOf } from './mandates.service.js';
import type { MandateStatus, MandatesTable } from './mandates.table.js';

/**
 * A mandate whose provider has a real adapter (its sandbox in test mode) is active only once the provider
 * confirms the payer's authorization on its hosted page. These are the steps after our consent page.
 */

/** Our page the provider sends the payer back to. */
export const returnUrlOf = (publicUrl: string, token: string) => `${publicUrl}/consent/${token}/return`;

/**
 * Starts the payer's authorization on the provider's hosted page (the mandate id is the idempotency key) and keeps
 * where it is, so that the link can resume it. Null when the provider could not be reached: the consent is kept
 * and opening the link again tries once more.
 */
export async function sendToProvider(
  ctx: AppContext,
  tenant: Tenant,
  mandate: MandatesTable,
  token: string,
  live: LiveProvider,
): Promise<string | null> {
  if (mandate.authorization_url) return mandate.authorization_url;
  const payer = await customerRow(ctx.db, tenant, mandate.payer_id);
  const schedule = mandate.schedule_id
    ? await findScheduleRow(ctx.db, tenant, mandate.schedule_id)
    : undefined;
  const returnUrl = returnUrlOf(ctx.config.publicUrl, token);
  const payerEmail = payerEmailOf(payer);
  let started: { url: string; providerReference: string };
  try {
    started = await live.adapter.startAuthorization({
      mandateId: mandate.id,
      payerName: payer.name,
      payerEmail,
      amount: schedule?.fixed_amount ?? null,
      currency: schedule?.currency ?? (await defaultCurrencyOf(ctx.db, tenant.workspaceId)),
      returnUrl,
      cancelUrl: `${returnUrl}?cancelled=1`,
    });
  } catch (error) {
    if (error instanceof ProviderCallError) return null;
    throw error;
  }
  const kept = await repo.updateIn(
    ctx.db,
    tenant,
    mandate.id,
    ['pending'],
    {
      authorization_reference: started.providerReference,
      authorization_url: started.url,
      payer_email: payerEmail,
      updated_at: tenant.clock.now().toISOString(),
    },
    { consented: true },
  );
  return kept ? started.url : null;
}

/** A consented mandate still waiting for its provider, by its consent token: what the link resumes. */
export async function awaitingProvider(
  ctx: AppContext,
  token: string,
): Promise<{ mandate: MandatesTable; tenant: Tenant; live: LiveProvider } | null> {
  const mandate = await repo.findByConsentToken(ctx.db, sha256(token));
  if (mandate?.status !== 'pending' || mandate.consented_at === null) return null;
  const tenant = await loadTenant(ctx.db, ctx.clock, {
    workspaceId: mandate.workspace_id,
    mode: mandate.mode,
  });
  if (mandate.consent_expires_at <= tenant.clock.now().toISOString()) return null;
  const live = await liveProvider(ctx, tenant, mandate.provider);
  return live ? { mandate, tenant, live } : null;
}

/**
 * What the provider says of a mandate's authorization, in the caller's transaction: confirmed makes a pending,
 * consented mandate active with what charges need; refused makes it failed; still pending changes nothing. A
 * mandate already past pending is left as it is (a second delivery, or the return page came first).
 */
export async function authorizationAnswered(
  trx: Trx,
  dialect: DialectName,
  tenant: Tenant,
  mandate: MandatesTable,
  state: AuthorizationState,
): Promise<MandateStatus> {
  if (mandate.status !== 'pending' || mandate.consented_at === null || state.status === 'pending') {
    return mandate.status;
  }
  if (state.status === 'active') {
    const active = await activate(trx, dialect, tenant, mandate.id, state.providerReference, state);
    return active?.status ?? mandate.status;
  }
  const failed = await repo.updateIn(
    trx,
    tenant,
    mandate.id,
    ['pending'],
    {
      status: 'failed',
      failure_reason: `not authorised at the provider: ${state.reason}`.slice(0, 500),
      updated_at: tenant.clock.now().toISOString(),
    },
    { consented: true },
  );
  if (failed) await recordEvent(trx, tenant, 'mandate.failed', toApi(failed), { status: 'pending' });
  return failed?.status ?? mandate.status;
}

/** The mandate a provider's event names: by our id when it carries it, else by the authorization's reference. */
export async function mandateOfAuthorization(
  trx: Trx,
  tenant: Tenant,
  reference: { mandateId: string | null; authorizationReference: string | null },
): Promise<MandatesTable | undefined> {
  if (reference.mandateId) return repo.findById(trx, tenant, reference.mandateId);
  if (!reference.authorizationReference) return undefined;
  return repo.findByAuthorizationReference(trx, tenant, reference.authorizationReference);
}

/**
 * Our return page, or a webhook that says only that something moved: asks the provider where the authorization
 * stands, then records it. Returns the mandate's status after, or null when the provider could not be reached.
 */
export async function checkAuthorization(
  ctx: AppContext,
  tenant: Tenant,
  mandate: MandatesTable,
  live: LiveProvider,
): Promise<MandateStatus | null> {
  if (!mandate.authorization_reference) return mandate.status;
  let state: AuthorizationState;
  try {
    state = await live.adapter.checkAuthorization(mandate.authorization_reference);
  } catch (error) {
    if (error instanceof ProviderCallError) return null;
    throw error;
  }
  return inTransaction(ctx, tenant, (trx) => authorizationAnswered(trx, ctx.dialect, tenant, mandate, state));
}
