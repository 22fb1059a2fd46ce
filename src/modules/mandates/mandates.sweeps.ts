import { sweepTenant } from '../../clock/tenant-clocks.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { recordEvent } from '../../events/outbox.js';
import { earliest, limitReached, type SweepDefinition } from '../../jobs/sweeps.js';
import * as repo from './mandates.repository.js';
import { registerAndActivate, toApi } from './mandates.service.js';

const BATCH = 200;

/** A mandate whose payer gave no answer within 24 hours is expired; its consent link stops working. */
export const consentExpirySweep: SweepDefinition = {
  name: 'mandates.expire',
  everyMs: 60_000,
  async run(ctx, scope) {
    const now = scope.now.toISOString();
    let handled = 0;
    for (;;) {
      const due = await repo.expiring(ctx.db, scope, now, BATCH);
      for (const found of due) {
        if (limitReached(scope, handled)) return handled;
        const tenant = sweepTenant(scope, found.workspace_id);
        const expired = await inTransaction(ctx, async (trx) => {
          const row = await repo.updateIn(
            trx,
            tenant,
            found.id,
            ['pending'],
            { status: 'expired', form_token_hash: null, updated_at: now },
            { awaitingConsent: true },
          );
          if (row) await recordEvent(trx, tenant, 'mandate.expired', toApi(row), { status: 'pending' });
          return row !== undefined;
        });
        if (expired) handled++;
      }
      if (due.length < BATCH) break;
    }
    return handled;
  },
  async nextDueAfter(ctx, scope) {
    return earliest(await repo.nextExpiring(ctx.db, scope, scope.now.toISOString()));
  },
};

/**
 * Consented mandates whose registration with their provider failed (the provider could not be reached): tried
 * again, a batch a run, until the provider answers.
 */
export const mandateActivationSweep: SweepDefinition = {
  name: 'mandates.activate',
  everyMs: 60_000,
  async run(ctx, scope) {
    let handled = 0;
    for (const found of await repo.awaitingActivation(ctx.db, scope, BATCH)) {
      if (limitReached(scope, handled)) return handled;
      const tenant = sweepTenant(scope, found.workspace_id);
      try {
        if (await registerAndActivate(ctx, tenant, found.id)) handled++;
      } catch (error) {
        ctx.log?.warn(
          { err: error, mandateId: found.id },
          'mandate could not be registered with its provider',
        );
      }
    }
    return handled;
  },
  // Attempts blocked for want of an active mandate may run at once.
  feeds: ['attempts.run'],
};
