import type { FastifyBaseLogger } from 'fastify';
import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { localDate } from '../../lib/calendar.js';
import { dayInWords } from '../../lib/in-words.js';
import { randomToken, sha256 } from '../../lib/link-tokens.js';
import { formatMoney } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
import { getCustomerRow } from '../customers/customers.service.js';
import { liveProvider } from '../providers/adapters.service.js';
import { providerDisplayName } from '../providers/providers.service.js';
import { type Collection, scheduleOutlook } from '../schedules/schedules.outlook.js';
import { getTrackRow } from '../tracks/tracks.service.js';
import { type BusinessCard, businessCard } from '../workspaces/workspaces.service.js';
import { awaitingProvider, checkAuthorization, sendToProvider } from './consent.provider.js';
import { agreementText, cadenceOf, type Terms } from './consent.terms.js';
import { toApi } from './mandates.mapper.js';
import * as repo from './mandates.repository.js';
import { registerAndActivate } from './mandates.service.js';
import type { ConsentEvidence, MandatesTable } from './mandates.table.js';

/** Why a consent link shows no form. */
export type ClosedReason = 'unknown' | 'used' | 'expired';

/** A link that shows no form: why, and (for a token this server issued) the business that sent it. */
export interface Closed {
  open: false;
  reason: ClosedReason;
  business: BusinessCard | null;
}

/** A collection as the page lists it. */
export interface CollectionShown {
  date: string;
  amount: string;
}

/** What the payer is asked to agree to, in the words and figures the pages show. */
export interface ConsentView {
  business: BusinessCard;
  payer: string;
  provider: string;
  planTitle: string | null;
  /** The agreement, word for word: shown on the page and kept, with its hash, as evidence. */
  text: string;
  /** Each collection when few; otherwise the first ones, `more` left out, then the last. */
  collections: CollectionShown[];
  more: { count: number; after: number } | null;
  /** Repeats with no end: the collections are only its first ones. */
  openEnded: boolean;
  /** The first collection to come, and whether its day has already come (it is then collected at once). */
  next: (CollectionShown & { due: boolean }) | null;
}

type Found = { open: true; mandate: MandatesTable; tenant: Tenant } | Closed;

/** The mandate behind a consent token, and whether its page may still be answered. */
async function find(ctx: AppContext, token: string): Promise<Found> {
  const mandate = await repo.findByConsentToken(ctx.db, sha256(token));
  if (!mandate) return { open: false, reason: 'unknown', business: null };
  const tenant = await loadTenant(ctx.db, ctx.clock, {
    workspaceId: mandate.workspace_id,
    mode: mandate.mode,
  });
  const closed = (reason: ClosedReason): Promise<Closed> =>
    businessCard(ctx.db, mandate.workspace_id).then((business) => ({ open: false, reason, business }));
  if (mandate.status === 'expired') return closed('expired');
  if (mandate.status !== 'pending' || mandate.consented_at !== null) return closed('used');
  if (mandate.consent_expires_at <= tenant.clock.now().toISOString()) return closed('expired');
  return { open: true, mandate, tenant };
}

/** Lists of up to this many collections are shown whole; longer ones, their first three and their last. */
const LISTED_WHOLE = 12;

function shownOf(collections: readonly Collection[], currency: string, openEnded: boolean) {
  const show = (c: Collection) => ({ date: dayInWords(c.date), amount: formatMoney(c.amount, currency) });
  if (openEnded) return { collections: collections.slice(0, 3).map(show), more: null };
  if (collections.length <= LISTED_WHOLE) return { collections: collections.map(show), more: null };
  const last = collections[collections.length - 1] as Collection;
  return {
    collections: [...collections.slice(0, 3), last].map(show),
    more: { count: collections.length - 4, after: 3 },
  };
}

async function viewOf(ctx: AppContext, mandate: MandatesTable, tenant: Tenant): Promise<ConsentView> {
  const business = await businessCard(ctx.db, mandate.workspace_id);
  const payer = await getCustomerRow(ctx.db, tenant, mandate.payer_id);
  const outlook = mandate.schedule_id ? await scheduleOutlook(ctx.db, tenant, mandate.schedule_id) : null;
  const plan = outlook?.trackId ? await getTrackRow(ctx.db, tenant, outlook.trackId) : undefined;
  const schedule = outlook?.schedule;
  const collections = outlook?.collections ?? [];
  const openEnded = outlook?.endless ?? false;
  const terms: Terms = {
    business: business.name,
    payer: payer.name,
    provider: providerDisplayName(mandate.provider),
    planTitle: plan?.title ?? null,
    schedule: schedule
      ? {
          currency: schedule.currency,
          cadence: cadenceOf(schedule.frequency, schedule.interval),
          collections,
          openEndedAmount: openEnded ? schedule.fixed_amount : null,
        }
      : null,
  };
  const first = collections[0];
  const view = {
    business,
    payer: payer.name,
    provider: terms.provider,
    planTitle: terms.planTitle,
    text: agreementText(terms),
    openEnded,
  };
  if (!schedule || !first) return { ...view, collections: [], more: null, next: null };
  return {
    ...view,
    ...shownOf(collections, schedule.currency, openEnded),
    next: {
      date: dayInWords(first.date),
      amount: formatMoney(first.amount, schedule.currency),
      due: first.date <= localDate(tenant.clock.now(), schedule.timezone),
    },
  };
}

/** Where the payer stands with the provider's own authorization, after approving on our page. */
export type AuthorizeStep = 'continue' | 'resume' | 'cancelled' | 'waiting' | 'unreachable' | 'refused';

/** A consented mandate whose payer is still to authorise on the provider's page (or has come back from it). */
export interface ProviderStep {
  open: 'provider';
  step: AuthorizeStep;
  view: ConsentView;
  /** The provider's hosted page, when there is one to go (back) to. */
  url: string | null;
}

export type ConsentPage =
  | { open: true; view: ConsentView; formToken: string; expiresAt: string }
  | ProviderStep
  | Closed;

/**
 * What the mandate keeps of a rendered page's form token: its hash bound to the words the page showed, so an
 * answer counts only for the agreement exactly as the payer read it (the evidence kept is then those words).
 */
const formTokenHash = (formToken: string, text: string) => sha256(`${formToken}\n${sha256(text)}`);

/**
 * What the consent page shows: the agreement and a fresh form token (its hash, bound to the agreement's words,
 * kept on the mandate: a post must carry the token of a page this server rendered, and the words must not have
 * changed since), or why the link no longer works.
 */
export async function showConsent(ctx: AppContext, token: string): Promise<ConsentPage> {
  const awaiting = await awaitingProvider(ctx, token);
  if (awaiting) {
    const url = await sendToProvider(ctx, awaiting.tenant, awaiting.mandate, token, awaiting.live);
    const view = await viewOf(ctx, awaiting.mandate, awaiting.tenant);
    return { open: 'provider', step: url ? 'resume' : 'unreachable', view, url };
  }
  const found = await find(ctx, token);
  if (!found.open) return found;
  const view = await viewOf(ctx, found.mandate, found.tenant);
  const formToken = randomToken('ft');
  const kept = await repo.updateIn(
    ctx.db,
    found.tenant,
    found.mandate.id,
    ['pending'],
    { form_token_hash: formTokenHash(formToken, view.text) },
    { awaitingConsent: true },
  );
  if (!kept) return { open: false, reason: 'used', business: view.business };
  return { open: true, view, formToken, expiresAt: found.mandate.consent_expires_at };
}

export interface ConsentAnswer {
  decision: 'approve' | 'decline';
  formToken: string;
  ip: string;
  userAgent: string | null;
  log: FastifyBaseLogger;
}

export type ConsentOutcome =
  | { done: true; status: 'active' | 'pending' | 'failed'; view: ConsentView }
  | (ProviderStep & { done: true; status: 'provider' })
  | { done: false; reason: ClosedReason | 'forged'; business: BusinessCard | null };

/**
 * The payer's answer. Approving keeps the evidence (time, address, browser, the words shown and their hash);
 * the mandate is then registered with its provider and active, in test mode, and in live mode once the provider
 * has approved the workspace (until then it stays pending, consented). Declining makes it failed. Works once; a post without the form
 * token of a rendered page changes nothing.
 */
export async function answerConsent(
  ctx: AppContext,
  token: string,
  answer: ConsentAnswer,
): Promise<ConsentOutcome> {
  const found = await find(ctx, token);
  if (!found.open) return { done: false, reason: found.reason, business: found.business };
  const { mandate, tenant } = found;
  const view = await viewOf(ctx, mandate, tenant);
  // Another site's post, an older page's, or one whose words have changed since (a payment recorded meanwhile).
  if (
    mandate.form_token_hash === null ||
    formTokenHash(answer.formToken, view.text) !== mandate.form_token_hash
  ) {
    return { done: false, reason: 'forged', business: null };
  }
  const used: ConsentOutcome = { done: false, reason: 'used', business: view.business };
  const now = tenant.clock.now().toISOString();
  const outcome = await inTransaction(ctx, null, async (trx): Promise<ConsentOutcome> => {
    const guard = { awaitingConsent: true, formTokenHash: mandate.form_token_hash as string };
    if (answer.decision === 'decline') {
      const failed = await repo.updateIn(
        trx,
        tenant,
        mandate.id,
        ['pending'],
        { status: 'failed', failure_reason: 'declined by the payer', form_token_hash: null, updated_at: now },
        guard,
      );
      if (!failed) return used;
      await recordEvent(trx, tenant, 'mandate.failed', toApi(failed), { status: 'pending' });
      return { done: true, status: 'failed', view };
    }
    const evidence: ConsentEvidence = {
      ip: answer.ip,
      user_agent: answer.userAgent,
      text_shown: view.text,
      text_sha256: sha256(view.text),
    };
    const consented = await repo.updateIn(
      trx,
      tenant,
      mandate.id,
      ['pending'],
      { consented_at: now, consent: JSON.stringify(evidence), form_token_hash: null, updated_at: now },
      guard,
    );
    if (!consented) return used;
    return { done: true, status: 'pending', view };
  });
  if (!outcome.done || outcome.status !== 'pending') return outcome;
  const live = await liveProvider(ctx, tenant, mandate.provider);
  if (live) {
    const consented = await repo.findById(ctx.db, tenant, mandate.id);
    const url = consented ? await sendToProvider(ctx, tenant, consented, token, live) : null;
    return {
      done: true,
      status: 'provider',
      open: 'provider',
      step: url ? 'continue' : 'unreachable',
      view,
      url,
    };
  }
  try {
    if (await registerAndActivate(ctx, tenant, mandate.id)) return { ...outcome, status: 'active' };
  } catch (error) {
    // The consent is kept; the sweep registers it with the provider once it answers.
    answer.log.warn(
      { err: error, mandateId: mandate.id },
      'mandate could not be registered with its provider',
    );
  }
  return outcome;
}

/**
 * Our page the provider sends the payer back to: asks the provider where the authorization stands and records
 * it (a webhook may have done so first). `cancelled`: the payer left the provider's page without authorising.
 */
export async function returnFromProvider(
  ctx: AppContext,
  token: string,
  cancelled: boolean,
): Promise<ConsentOutcome> {
  const awaiting = await awaitingProvider(ctx, token);
  if (!awaiting) {
    const mandate = await repo.findByConsentToken(ctx.db, sha256(token));
    if (!mandate) return { done: false, reason: 'unknown', business: null };
    const tenant = await loadTenant(ctx.db, ctx.clock, {
      workspaceId: mandate.workspace_id,
      mode: mandate.mode,
    });
    const view = await viewOf(ctx, mandate, tenant);
    if (mandate.status === 'active') return { done: true, status: 'active', view };
    return {
      done: false,
      reason: mandate.status === 'expired' ? 'expired' : 'used',
      business: view.business,
    };
  }
  const { tenant, mandate, live } = awaiting;
  const view = await viewOf(ctx, mandate, tenant);
  const status = await checkAuthorization(ctx, tenant, mandate, live);
  if (status === 'active') return { done: true, status: 'active', view };
  const step: AuthorizeStep =
    status === null ? 'unreachable' : status === 'failed' ? 'refused' : cancelled ? 'cancelled' : 'waiting';
  const url = status === 'pending' ? mandate.authorization_url : null;
  return { done: true, status: 'provider', open: 'provider', step, view, url };
}
