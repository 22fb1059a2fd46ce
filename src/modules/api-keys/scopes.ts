/** Scope resources; each has `:read` and `:write`, and `:write` includes `:read`. */
export const SCOPE_RESOURCES = [
  'customers',
  'tracks',
  'payments',
  'reminders',
  'reports',
  'ledger',
  'webhooks',
  'events',
  'schedules',
  'mandates',
  'attempts',
  'account',
] as const;

export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type Scope = `${ScopeResource}:${'read' | 'write'}`;

/** First path segment after `/api/v1` -> the scope resource it needs. */
const SEGMENT_RESOURCE: Record<string, ScopeResource> = {
  customers: 'customers',
  tracks: 'tracks',
  payments: 'payments',
  reminders: 'reminders',
  reports: 'reports',
  ledger: 'ledger',
  webhooks: 'webhooks',
  events: 'events',
  'collection-schedules': 'schedules',
  obligations: 'schedules',
  'payment-mandates': 'mandates',
  'collection-attempts': 'attempts',
  // A pay link belongs to its plan: POST /tracks/{id}/pay-links makes it.
  'pay-links': 'tracks',
  messages: 'reminders',
  account: 'account',
  'audit-log': 'account',
  'portal-links': 'customers',
  // A promise to pay is on a plan.
  promises: 'tracks',
  disputes: 'tracks',
};

export const ALL_SCOPES: readonly Scope[] = SCOPE_RESOURCES.flatMap(
  (r) => [`${r}:read`, `${r}:write`] as Scope[],
);

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** The scope a request needs: the first path segment names the resource; GET reads, anything else writes. */
export function requiredScope(routePath: string, method: string): Scope | null {
  const segment = routePath.replace(/^\/api\/v1\/?/, '').split('/')[0] ?? '';
  const resource = SEGMENT_RESOURCE[segment];
  if (!resource) return null;
  return `${resource}:${method === 'GET' || method === 'HEAD' ? 'read' : 'write'}`;
}

/** `all` for a key with every scope, else the listed set. */
export type Grant = 'all' | ReadonlySet<Scope>;

export function parseGrant(stored: string): Grant {
  return stored === '*' ? 'all' : new Set(stored.split(',').filter(isScope));
}

export function allows(grant: Grant, scope: Scope): boolean {
  if (grant === 'all' || grant.has(scope)) return true;
  return scope.endsWith(':read') && grant.has(scope.replace(/:read$/, ':write') as Scope);
}
