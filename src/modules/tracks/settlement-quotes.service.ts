import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { AppError, fieldError } from '../../lib/app-error.js';
import { addDays, localDate, startOfFollowingDay } from '../../lib/calendar.js';
import { newId } from '../../lib/ids.js';
import { settlementFigures } from '../../money/index.js';
import type { AuthContext } from '../api-keys/api-keys.service.js';
import * as quotes from './settlement-quotes.repository.js';
import type { SettlementQuote, SettlementQuoteQuery } from './settlement-quotes.schemas.js';
import type { SettlementQuotesTable } from './settlement-quotes.table.js';
import { getTrackRow } from './tracks.service.js';

/** The furthest day ahead a quote may be asked for. */
const MAX_DAYS_AHEAD = 366;

function toApi(row: SettlementQuotesTable): SettlementQuote {
  return {
    id: row.id,
    trackId: row.track_id,
    asOf: row.as_of,
    amount: row.amount,
    discount: row.discount,
    feesIncluded: row.fees_included,
    validUntil: row.valid_until,
    currency: row.currency,
    balance: row.balance_at_quote,
  };
}

/** `GET /tracks/{id}/settlement-quote`: what clears an active plan on a day, kept so a payment can name it. */
export async function quoteSettlement(
  ctx: AppContext,
  auth: AuthContext,
  trackId: string,
  query: SettlementQuoteQuery,
): Promise<SettlementQuote> {
  const at = auth.clock.now();
  const zone = auth.workspace.timezone;
  const today = localDate(at, zone);
  const asOf = query.as_of ?? today;
  if (asOf < today) throw fieldError({ as_of: `must be today (${today}) or later` });
  if (asOf > addDays(today, MAX_DAYS_AHEAD)) {
    throw fieldError({ as_of: `must be at most ${MAX_DAYS_AHEAD} days ahead of today (${today})` });
  }
  return inTransaction(ctx, auth, async (trx) => {
    const track = await getTrackRow(trx, auth, trackId);
    if (track.status !== 'active' || track.balance === 0) {
      throw new AppError(
        'invalid_state',
        `Cannot quote a settlement: the plan is ${track.status} with a balance of ${track.balance}.`,
        {
          status: track.status,
          balance: track.balance,
          action: 'settlement_quote',
        },
      );
    }
    const { discount, feesIncluded } = await settlementFigures(trx, auth, track, asOf);
    const row: SettlementQuotesTable = {
      id: newId('settlementQuote', at),
      workspace_id: auth.workspaceId,
      mode: auth.mode,
      track_id: track.id,
      as_of: asOf,
      amount: track.balance - discount,
      discount,
      fees_included: feesIncluded,
      balance_at_quote: track.balance,
      currency: track.currency,
      valid_until: startOfFollowingDay(asOf, zone),
      used_by_payment_id: null,
      created_at: at.toISOString(),
    };
    await quotes.insert(trx, row);
    return toApi(row);
  });
}
