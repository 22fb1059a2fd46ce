import type { FastifyBaseLogger } from 'fastify';
import { loadTenant } from '../../clock/tenant-clocks.js';
import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { recordEvent } from '../../events/outbox.js';
import { dateInWords } from '../../lib/calendar.js';
import { formatMoney } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import * as obligations from '../schedules/obligations.repository.js';
import * as schedules from '../schedules/schedules.repository.js';
import type { SchedulesTable } from '../schedules/schedules.table.js';
import * as repo from './mandates.repository.js';
import { randomToken, registerAndActivate, sha256, toApi } from './mandates.service.js';
import type { ConsentEvidence, MandatesTable } from './mandates.table.js';

/** Why a consent link shows no form. */
export type ClosedReason = 'unknown' | 'used' | 'expired';

/** What the payer is asked to agree to. */
export interface ConsentView {
  business: string;
  payer: string;
  provider: string;
  /** The agreement, word for word: shown on the page and kept, with its hash, as evidence. */
  text: string;
  /** The first collections, as dates and amounts people read. */
  collections: { date: string; amount: string }[];
}

type Found = { open: true; mandate: MandatesTable; tenant: Tenant } | { open: false; reason: ClosedReason };

/** The mandate behind a consent token, and whether its page may still be answered. */
async function find(ctx: AppContext, token: string): Promise<Found> {
  const mandate = await repo.findByConsentToken(ctx.db, sha256(token));
  if (!mandate) return { open: false, reason: 'unknown' };
  const tenant = await loadTenant(ctx.db, ctx.clock, {
    workspaceId: mandate.workspace_id,
    mode: mandate.mode,
  });
  if (mandate.status === 'expired') return { open: false, reason: 'expired' };
  if (mandate.status !== 'pending' || mandate.consented_at !== null) return { open: false, reason: 'used' };
  if (mandate.consent_expires_at <= tenant.clock.now().toISOString())
    return { open: false, reason: 'expired' };
  return { open: true, mandate, tenant };
}

const EVERY: Record<string, [string, string]> = {
  daily: ['every day', 'days'],
  custom: ['every day', 'days'],
  weekly: ['every week', 'weeks'],
  monthly: ['every month', 'months'],
};

/** How often, in words: "every month", "every 2 weeks", "once". */
function howOften(schedule: SchedulesTable, count: number): string {
  const every = EVERY[schedule.frequency];
  if (every)
    return schedule.interval && schedule.interval > 1 ? `every ${schedule.interval} ${every[1]}` : every[0];
  if (schedule.frequency === 'installment_sequence') return `in ${count} monthly instalments`;
  if (schedule.frequency === 'flexible') return 'in one or more parts';
  return 'once';
}

async function viewOf(ctx: AppContext, mandate: MandatesTable, tenant: Tenant): Promise<ConsentView> {
  const workspace = await ctx.db
    .selectFrom('workspaces')
    .select('name')
    .where('id', '=', mandate.workspace_id)
    .executeTakeFirstOrThrow();
  const payer = await ctx.db
    .selectFrom('customers')
    .select('name')
    .where('id', '=', mandate.payer_id)
    .executeTakeFirstOrThrow();
  const schedule = mandate.schedule_id
    ? await schedules.findRow(ctx.db, tenant, mandate.schedule_id)
    : undefined;
  const open = schedule ? await obligations.openOfSchedule(ctx.db, schedule.id) : [];
  const collections = open
    .slice(0, 3)
    .map((o) => ({ date: dateInWords(o.due_date), amount: formatMoney(o.amount, o.currency) }));
  const by = `${workspace.name} may collect`;
  const from = `from ${payer.name} by automatic debit through ${mandate.provider}`;
  const what = schedule
    ? `${formatMoney(schedule.fixed_amount, schedule.currency)} ${howOften(schedule, open.length)}${
        collections[0] ? `, starting ${collections[0].date},` : ''
      }`
    : 'the amounts agreed with you';
  return {
    business: workspace.name,
    payer: payer.name,
    provider: mandate.provider,
    text: `${by} ${what} ${from}. You can withdraw this authority at any time by asking ${workspace.name}.`,
    collections,
  };
}

export type ConsentPage =
  | { open: true; view: ConsentView; formToken: string; expiresAt: string }
  | { open: false; reason: ClosedReason };

/**
 * What the consent page shows: the agreement and a fresh form token (its hash kept on the mandate: a post must
 * carry the token of a page this server rendered), or why the link no longer works.
 */
export async function showConsent(ctx: AppContext, token: string): Promise<ConsentPage> {
  const found = await find(ctx, token);
  if (!found.open) return found;
  const formToken = randomToken('ft');
  const kept = await repo.updateIn(
    ctx.db,
    found.tenant,
    found.mandate.id,
    ['pending'],
    { form_token_hash: sha256(formToken) },
    { awaitingConsent: true },
  );
  if (!kept) return { open: false, reason: 'used' };
  return {
    open: true,
    view: await viewOf(ctx, found.mandate, found.tenant),
    formToken,
    expiresAt: found.mandate.consent_expires_at,
  };
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
  | { done: false; reason: ClosedReason | 'forged' };

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
  if (!found.open) return { done: false, reason: found.reason };
  const { mandate, tenant } = found;
  if (mandate.form_token_hash === null || sha256(answer.formToken) !== mandate.form_token_hash) {
    return { done: false, reason: 'forged' };
  }
  const view = await viewOf(ctx, mandate, tenant);
  const now = tenant.clock.now().toISOString();
  const outcome = await inTransaction(ctx, async (trx): Promise<ConsentOutcome> => {
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
      if (!failed) return { done: false, reason: 'used' };
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
    if (!consented) return { done: false, reason: 'used' };
    return { done: true, status: 'pending', view };
  });
  if (!outcome.done || outcome.status !== 'pending') return outcome;
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
