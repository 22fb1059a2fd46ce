import { tenantClock, testClockOffset } from '../../clock/tenant-clocks.js';
import type { DbOrTrx } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { Mode } from '../../lib/tenant.js';
import type { AuthContext } from '../api-keys/index.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import type { Role } from './people.table.js';
import { apiRefusalFor } from './roles.js';

/**
 * The API's view of a signed-in person: their workspace and mode, the tenant clock (the test clock in test mode),
 * every scope narrowed by their role. The console calls the API with it, so a person's change goes through the
 * same validation, idempotency, events, webhooks and audit trail as a key's.
 */
export async function authOfPerson(
  db: DbOrTrx,
  base: Clock,
  person: { userId: string; workspaceId: string; mode: Mode; role: Role },
): Promise<AuthContext | undefined> {
  const workspace = await findWorkspace(db, person.workspaceId);
  if (!workspace) return undefined;
  const offset = person.mode === 'test' ? await testClockOffset(db, person.workspaceId) : 0;
  return {
    keyId: person.userId,
    actor: { type: 'user', id: person.userId },
    workspaceId: person.workspaceId,
    mode: person.mode,
    clock: tenantClock(base, person.mode, offset),
    grant: 'all',
    refuses: apiRefusalFor(person.role),
    workspace: {
      defaultCurrency: workspace.default_currency,
      timezone: workspace.timezone,
      subscriptionPlan: workspace.subscription_plan,
    },
  };
}
