import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';

export interface BalanceCheck {
  ok: boolean;
  text: string;
}

/** After the load: the plan's balance as the API reports it equals its amount minus every recorded payment. */
export async function verifyBalance(
  baseUrl: string,
  key: string,
  env: { DATA_DIR: string; DATABASE_URL?: string },
  track: { id: string; amount: number },
): Promise<BalanceCheck> {
  const response = await fetch(`${baseUrl}/api/v1/tracks/${track.id}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(10_000),
  });
  const { balance, amountPaid } = (
    (await response.json()) as { data: { balance: number; amountPaid: number } }
  ).data;

  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const handle = openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 1 });
  try {
    const payments = await handle.db
      .selectFrom('payments')
      .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('amount').as('total')])
      .where('track_id', '=', track.id)
      .executeTakeFirstOrThrow();
    const ledger = await handle.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.sum<number>('amount').as('total'))
      .where('track_id', '=', track.id)
      .executeTakeFirstOrThrow();
    const paid = payments.total ?? 0;
    const ok = balance === track.amount - paid && amountPaid === paid && ledger.total === balance;
    return {
      ok,
      text:
        `${ok ? 'OK' : 'MISMATCH'}: balance ${balance} = ${track.amount} - ${paid} ` +
        `(${payments.count} payments of 1; amountPaid ${amountPaid}; ledger sums to ${ledger.total})`,
    };
  } finally {
    await handle.close();
  }
}
