import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';

export interface BalanceCheck {
  ok: boolean;
  text: string;
}

interface Plan {
  id: string;
  amount: number;
}

/**
 * After the load, for every plan: the balance the API reports equals its amount minus every recorded
 * payment, `amountPaid` equals that sum, and the plan's ledger entries sum to the balance.
 */
export async function verifyBalance(
  baseUrl: string,
  key: string,
  env: { DATA_DIR: string; DATABASE_URL?: string },
  plans: Plan[],
): Promise<BalanceCheck> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const handle = openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 1 });
  try {
    const ids = plans.map((plan) => plan.id);
    const payments = await handle.db
      .selectFrom('payments')
      .select((eb) => [
        'track_id',
        eb.fn.countAll<number>().as('count'),
        eb.fn.sum<number>('amount').as('total'),
      ])
      .where('track_id', 'in', ids)
      .groupBy('track_id')
      .execute();
    const ledger = await handle.db
      .selectFrom('ledger_entries')
      .select((eb) => ['track_id', eb.fn.sum<number>('amount').as('total')])
      .where('track_id', 'in', ids)
      .groupBy('track_id')
      .execute();
    const paidBy = new Map(payments.map((row) => [row.track_id, Number(row.total)]));
    const ledgerBy = new Map(ledger.map((row) => [row.track_id, Number(row.total)]));

    const mismatches: string[] = [];
    let totalPaid = 0;
    for (const plan of plans) {
      const response = await fetch(`${baseUrl}/api/v1/tracks/${plan.id}`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(10_000),
      });
      const { balance, amountPaid } = (
        (await response.json()) as { data: { balance: number; amountPaid: number } }
      ).data;
      const paid = paidBy.get(plan.id) ?? 0;
      totalPaid += paid;
      if (balance !== plan.amount - paid || amountPaid !== paid || ledgerBy.get(plan.id) !== balance) {
        mismatches.push(
          `${plan.id}: balance ${balance}, amount ${plan.amount}, payments ${paid}, ledger ${ledgerBy.get(plan.id)}`,
        );
      }
    }
    const count = payments.reduce((sum, row) => sum + Number(row.count), 0);
    return mismatches.length === 0
      ? {
          ok: true,
          text: `OK: on all ${plans.length} plans, balance = amount - payments = ledger sum (${count} payments, ${totalPaid} paid)`,
        }
      : { ok: false, text: `MISMATCH on ${mismatches.length} plans: ${mismatches.slice(0, 3).join('; ')}` };
  } finally {
    await handle.close();
  }
}
