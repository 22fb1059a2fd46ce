import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import type { ChargeRecord, ChargeResult } from './payment-providers.js';

export interface SimulatedChargesTable {
  reference: string;
  provider: string;
  amount: number;
  currency: string;
  /** JSON `ChargeResult`. */
  result: string;
  created_at: string;
}

declare module '../db/schema.js' {
  interface Database {
    simulated_charges: SimulatedChargesTable;
  }
}

export function chargeRecordIn(db: Db, clock: Clock): ChargeRecord {
  return {
    async once(provider, request, result) {
      await db
        .insertInto('simulated_charges')
        .values({
          reference: request.reference,
          provider,
          amount: request.amount,
          currency: request.currency,
          result: JSON.stringify(result),
          created_at: clock.now().toISOString(),
        })
        .onConflict((oc) => oc.column('reference').doNothing())
        .execute();
      const kept = await db
        .selectFrom('simulated_charges')
        .select('result')
        .where('reference', '=', request.reference)
        .executeTakeFirstOrThrow();
      return JSON.parse(kept.result) as ChargeResult;
    },
  };
}
