import { AppError } from '../../lib/app-error.js';

/** Subscription plans: what a workspace may do and how fast. The rate limit comes from here. */
export interface SubscriptionPlan {
  id: string;
  name: string;
  rateLimitPerMinute: number;
  limits: { webhookEndpoints: number; apiKeys: number };
}

export const SUBSCRIPTION_PLANS: readonly SubscriptionPlan[] = [
  { id: 'starter', name: 'Starter', rateLimitPerMinute: 600, limits: { webhookEndpoints: 5, apiKeys: 10 } },
  { id: 'growth', name: 'Growth', rateLimitPerMinute: 1500, limits: { webhookEndpoints: 20, apiKeys: 50 } },
  { id: 'scale', name: 'Scale', rateLimitPerMinute: 6000, limits: { webhookEndpoints: 100, apiKeys: 200 } },
];

export const DEFAULT_SUBSCRIPTION_PLAN = 'starter';

export function subscriptionPlanById(id: string): SubscriptionPlan {
  return SUBSCRIPTION_PLANS.find((p) => p.id === id) ?? (SUBSCRIPTION_PLANS[0] as SubscriptionPlan);
}

/** Refusal of an action the workspace's plan has no room for; the workspace is in a state that forbids it. */
export function subscriptionLimitReached(action: string, limit: number, what: string): AppError {
  return new AppError(
    'invalid_state',
    `Cannot ${action.replaceAll('_', ' ')}: the plan allows ${limit} ${what}.`,
    {
      status: 'limit_reached',
      action,
      limit,
    },
  );
}
