import type { DisputesTable } from './collections.table.js';
import type { Dispute, DisputeAction } from './disputes.schemas.js';

export function toApi(row: DisputesTable): Dispute {
  const resolved = row.status !== 'open';
  return {
    id: row.id,
    trackId: row.track_id,
    obligationId: row.obligation_id,
    paymentId: row.payment_id,
    customerId: row.customer_id,
    reason: row.reason,
    note: row.note,
    status: row.status,
    resolution:
      row.status === 'open'
        ? null
        : {
            outcome: row.status,
            action: resolved && row.resolution ? (JSON.parse(row.resolution) as DisputeAction) : null,
            note: row.resolution_note,
          },
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
  };
}
