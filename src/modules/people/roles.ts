import type { Role } from './people.table.js';

/** What a person may do in the console besides looking. */
export type Ability =
  | 'record_payment'
  | 'send_reminder'
  | 'edit_notes'
  | 'reverse_payment'
  | 'edit_records'
  | 'see_settings'
  | 'change_settings'
  | 'manage_people'
  | 'manage_owners'
  | 'see_audit';

const ABILITIES: Record<Role, readonly Ability[]> = {
  owner: [
    'record_payment',
    'send_reminder',
    'edit_notes',
    'reverse_payment',
    'edit_records',
    'see_settings',
    'change_settings',
    'manage_people',
    'manage_owners',
    'see_audit',
  ],
  admin: [
    'record_payment',
    'send_reminder',
    'edit_notes',
    'reverse_payment',
    'edit_records',
    'see_settings',
    'change_settings',
    'manage_people',
    'see_audit',
  ],
  collector: ['record_payment', 'send_reminder', 'edit_notes'],
  viewer: ['see_settings', 'see_audit'],
};

export function can(role: Role, ability: Ability): boolean {
  return ABILITIES[role].includes(ability);
}

/** API paths a collector does not read: keys, webhooks, events, the workspace's settings and the audit trail. */
const HIDDEN_FROM_COLLECTORS = ['/webhooks', '/events', '/account', '/audit-log', '/reports/export'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What a role refuses of the API when a person acts through the console (the person's calls carry every scope;
 * the role narrows them). Owners and admins may do all the API does; a collector reads customers, plans and
 * payments, records payments, sends reminders (and the link to a customer's page), records promises to pay,
 * opens disputes and changes a customer's notes; a viewer only reads.
 */
export function apiRefusalFor(role: Role) {
  return ({ method, route, body }: { method: string; route: string; body: unknown }): string | null => {
    if (role === 'owner' || role === 'admin') return null;
    const path = route.replace(/^\/api\/v1/, '');
    if (method === 'GET' || method === 'HEAD') {
      return role === 'collector' && HIDDEN_FROM_COLLECTORS.some((p) => path.startsWith(p))
        ? 'A collector does not see keys, webhooks, events or settings; ask an owner or admin.'
        : null;
    }
    if (role === 'viewer') return 'A viewer can only look; ask an owner or admin to make changes.';
    if (method === 'POST' && (path === '/payments' || path === '/reminders' || path === '/reminders/send'))
      return null;
    // Recording what a customer promised or disputed on the phone, and cancelling a promise, is part of chasing;
    // resolving a dispute, writing off and waiving give money up and stay with owners and admins.
    if (
      method === 'POST' &&
      (path === '/promises' || path === '/promises/:id/cancel' || path === '/disputes')
    )
      return null;
    // Sending a customer the link to their page is sending a message.
    if (method === 'POST' && path === '/customers/:id/portal-links' && isObject(body) && body.send)
      return null;
    if (method === 'PATCH' && path === '/customers/:id' && isObject(body)) {
      const fields = Object.keys(body);
      if (fields.length > 0 && fields.every((field) => field === 'notes')) return null;
    }
    return 'A collector records payments, promises to pay and disputes, sends reminders and adds notes; ask an owner or admin for this.';
  };
}
