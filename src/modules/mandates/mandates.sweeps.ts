import { sweepTenant } from '../../clock/tenant-clocks.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { eachDue } from '../../jobs/sweep-batches.js';
import { earliest, type SweepDefinition } from '../../jobs/sweeps.js';
import { recordEvent } from '../../outbox/outbox.js';
import { toApi } from './mandates.mapper.js';
import * as repo from './mandates.repository.js';
import { registerAndActivate } from './mandates.service.js';

const BATCH = 200;

/** A mandate whose payer gave no answer within 24 hours is expired; its consent link stops working. */
export const consentExpirySweep: SweepDefinition = {
  name: 'mandates.expire',
  everyMs: 60_000,
  async run(ctx, scope) {
    const now = scope.now.toISOString();
    return eachDue(scope, {
      batch: BATCH,
      read: (limit) => repo.expiring(ctx.db, scope, now, limit),
      handle(found) {
        const tenant = sweepTenant(scope, found.workspace_id);
        return inTransaction(ctx, null, async (trx) => {
          const row = await repo.updateIn(
            trx,
            tenant,
            found.id,
            ['pending'],
            { status: 'expired', form_token_hash: null, updated_at: now },
            { awaitingAnswer: true },
          );
          if (row) await recordEvent(trx, tenant, 'mandate.expired', toApi(row), { status: 'pending' });
          return row !== undefined;
        });
      },
    });
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
    return eachDue(scope, {
      batch: BATCH,
      maxBatches: 1,
      read: (limit) => repo.awaitingActivation(ctx.db, scope, limit),
      async handle(found) {
        const tenant = sweepTenant(scope, found.workspace_id);
        try {
          return await registerAndActivate(ctx, tenant, found.id);
        } catch (error) {
          ctx.log?.warn(
            { err: error, mandateId: found.id },
            'mandate could not be registered with its provider',
          );
          return false;
        }
      },
    });
  },
  // Attempts blocked for want of an active mandate may run at once.
  feeds: ['attempts.run'],
};
