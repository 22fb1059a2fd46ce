import type { AppContext } from '../../context.js';
import { limitFor } from '../../http/rate-limit.js';
import { AppError, fieldError } from '../../lib/app-error.js';
import { toSafeInteger } from '../../lib/money.js';
import { type AuthContext, findKey, keyToView } from '../api-keys/api-keys.service.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import * as repo from './account.repository.js';
import {
  type AccountContext,
  MAX_USAGE_DAYS,
  type Subscription,
  type Usage,
  type UsageQuery,
} from './account.schemas.js';
import { PLANS, planById } from './plans.js';
import type { UsageRecorder } from './usage.recorder.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_USAGE_DAYS = 30;

export async function getAccount(ctx: AppContext, auth: AuthContext): Promise<AccountContext> {
  const [workspace, key] = await Promise.all([
    findWorkspace(ctx.db, auth.workspaceId),
    findKey(ctx.db, auth.keyId),
  ]);
  if (!workspace || !key) throw new AppError('unauthorized', 'The API key is not valid or has been revoked.');
  return {
    workspace: {
      id: workspace.id,
      name: workspace.name,
      defaultCurrency: workspace.default_currency,
      timezone: workspace.timezone,
      createdAt: workspace.created_at,
    },
    mode: auth.mode,
    livemode: auth.mode === 'live',
    apiKey: { id: key.id, prefix: key.prefix, scopes: keyToView(key).scopes },
  };
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
    plan: planById(auth.workspace.subscriptionPlan),
    effectiveRateLimitPerMinute: limitFor(ctx.config, auth.workspace.subscriptionPlan),
    plans: [...PLANS],
  };
}
