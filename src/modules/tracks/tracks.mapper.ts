import { parseMetadata } from '../../lib/json.js';
import type { Track } from './tracks.schemas.js';
import type { TracksTable } from './tracks.table.js';

export type { TrackStatus, TracksTable } from './tracks.table.js';

export function toApi(row: TracksTable): Track {
  return {
    id: row.id,
    customerId: row.customer_id,
    title: row.title,
    amount: row.amount,
    balance: row.balance,
    amountPaid: row.amount_paid,
    currency: row.currency,
    installments: row.installments,
    status: row.status,
    dueDate: row.due_date,
    metadata: parseMetadata(row.metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archivedAt: row.archived_at,
  };
}
