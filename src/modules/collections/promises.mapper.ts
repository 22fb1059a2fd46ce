import type { PromisesTable } from './collections.table.js';
import type { PromiseToPay } from './promises.schemas.js';

export function toApi(row: PromisesTable): PromiseToPay {
  return {
    id: row.id,
    trackId: row.track_id,
    obligationId: row.obligation_id,
    amount: row.amount,
    currency: row.currency,
    date: row.date,
    note: row.note,
    source: row.source,
    status: row.status,
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
  };
}
