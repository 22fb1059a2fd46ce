import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { limitFor } from '../../http/rate-limit.js';
import { AppError, fieldError } from '../../lib/app-error.js';
import { contactPolicyOf } from '../../lib/contact-policy.js';
import { lateFeeOf, lateFeeToCamel } from '../../lib/late-fee.js';
import { toSafeInteger } from '../../lib/money.js';
import { receiptSettingsOf } from '../../lib/receipt-settings.js';
import { type AuthContext, findKey, keyToView } from '../api-keys/api-keys.service.js';
import { SUBSCRIPTION_PLANS, subscriptionPlanById } from '../workspaces/subscription-plans.js';
import { findWorkspace, type WorkspacesTable } from '../workspaces/workspaces.service.js';
import { updateSettings } from '../workspaces/workspaces.settings.js';
import * as repo from './account.repository.js';
import {
  type AccountContext,
  type AccountUpdate,
  MAX_USAGE_DAYS,
  type Subscription,
  type Usage,
  type UsageQuery,
} from './account.schemas.js';
import type { UsageRecorder } from './usage.recorder.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_USAGE_DAYS = 30;

type KeyRow = NonNullable<Awaited<ReturnType<typeof findKey>>>;

/** The key in use (undefined once revoked), or null for a person acting through the console. */
const keyOf = (ctx: AppContext, auth: AuthContext) =>
  auth.actor.type === 'key' ? findKey(ctx.db, auth.keyId) : Promise.resolve(null);

const revoked = () => new AppError('unauthorized', 'The API key is not valid or has been revoked.');

function toApi(workspace: WorkspacesTable, key: KeyRow | null, auth: AuthContext): AccountContext {
  return {
    id: workspace.id,
    name: workspace.name,
    mode: auth.mode,
    currency: workspace.default_currency,
    timeZone: workspace.timezone,
    country: workspace.country,
    supportEmail: workspace.support_email,
    supportPhone: workspace.support_phone,
    brandColor: workspace.brand_color,
    contactPolicy: contactPolicyOf(workspace.contact_policy),
    receipts: receiptSettingsOf(workspace.receipt_settings),
    customerPage: { inReminders: workspace.customer_page_in_reminders === 1 },
    lateFeeDefault: lateFeeToCamel(lateFeeOf(workspace.late_fee_default)),
    createdAt: workspace.created_at,
    workspace: {
      id: workspace.id,
      name: workspace.name,
      defaultCurrency: workspace.default_currency,
      timezone: workspace.timezone,
      createdAt: workspace.created_at,
    },
    livemode: auth.mode === 'live',
    apiKey: key ? { id: key.id, prefix: key.prefix, scopes: keyToView(key).scopes } : null,
  };
}

export async function getAccount(ctx: AppContext, auth: AuthContext): Promise<AccountContext> {
  const [workspace, key] = await Promise.all([findWorkspace(ctx.db, auth.workspaceId), keyOf(ctx, auth)]);
  if (!workspace || key === undefined) throw revoked();
  return toApi(workspace, key, auth);
}

const SETTINGS =
  'name, currency, timeZone, country, supportEmail, supportPhone, brandColor, contactPolicy, receipts, customerPage, lateFeeDefault';

/** Changes the workspace's settings for both modes; all or nothing. */
export async function updateAccount(
  ctx: AppContext,
  auth: AuthContext,
  input: AccountUpdate,
): Promise<AccountContext> {
  if (Object.keys(input).length === 0) throw fieldError({ body: `must change at least one of ${SETTINGS}` });
  const key = await keyOf(ctx, auth);
  if (key === undefined) throw revoked();
  const account = await inTransaction(ctx, auth, async (trx) => {
    const result = await updateSettings(trx, ctx.dialect, ctx.clock, auth.workspaceId, input);
    if ('missing' in result) throw revoked();
    if ('problems' in result) throw fieldError(result.problems as Record<string, string>);
    return toApi(result.workspace, key, auth);
  });
  // Keys carry the workspace's currency and time zone; read them again so the next request uses the new ones.
  ctx.keys.forgetWorkspace(auth.workspaceId);
  return account;
}

function dayNumber(day: string): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
}

function dayString(dayNo: number): string {
  return new Date(dayNo * DAY_MS).toISOString().slice(0, 10);
}

/** The requested UTC days; by default the 30 days ending today. */
function usagePeriod(ctx: AppContext, query: UsageQuery): repo.DayRange {
  const to = query.to ?? ctx.clock.now().toISOString().slice(0, 10);
  const from = query.from ?? dayString(dayNumber(to) - (DEFAULT_USAGE_DAYS - 1));
  const days = dayNumber(to) - dayNumber(from) + 1;
  if (days < 1) throw fieldError({ from: 'must not be after to' });
  if (days > MAX_USAGE_DAYS) throw fieldError({ from: `must be at most ${MAX_USAGE_DAYS} days before to` });
  return { from, to };
}

export async function getUsage(
  ctx: AppContext,
  recorder: UsageRecorder,
  auth: AuthContext,
  query: UsageQuery,
): Promise<Usage> {
  const period = usagePeriod(ctx, query);
  await recorder.flush();
  const [days, keys] = await Promise.all([
    repo.usageByDay(ctx.db, auth, period),
    repo.usageByKey(ctx.db, auth, period),
  ]);

  const byDay = new Map(days.map((d) => [d.day, d]));
  const daily: Usage['daily'] = [];
  for (let n = dayNumber(period.from); n <= dayNumber(period.to); n++) {
    const day = dayString(n);
    const row = byDay.get(day);
    daily.push({
      day,
      requests: row ? toSafeInteger(row.requests, 'requests') : 0,
      errors: row ? toSafeInteger(row.errors, 'errors') : 0,
    });
  }

  return {
    period,
    totals: {
      requests: daily.reduce((sum, d) => sum + d.requests, 0),
      errors: daily.reduce((sum, d) => sum + d.errors, 0),
    },
    daily,
    byKey: keys.map((k) => ({
      keyId: k.key_id,
      requests: toSafeInteger(k.requests, 'requests'),
      errors: toSafeInteger(k.errors, 'errors'),
    })),
  };
}

export function getSubscription(ctx: AppContext, auth: AuthContext): Subscription {
  return {
    plan: subscriptionPlanById(auth.workspace.subscriptionPlan),
    effectiveRateLimitPerMinute: limitFor(ctx.config, auth.workspace.subscriptionPlan),
    plans: [...SUBSCRIPTION_PLANS],
  };
}
