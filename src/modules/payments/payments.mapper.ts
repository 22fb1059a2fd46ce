import { parseMetadata } from '../../lib/json.js';
import type { Payment } from './payments.schemas.js';
import type { PaymentAllocation, PaymentsTable } from './payments.table.js';

/** Money no plan took yet: the customer's credit. Its reason stays once it is applied. */
export const isUnapplied = (row: Pick<PaymentsTable, 'unapplied_reason' | 'status' | 'track_id'>) =>
  row.unapplied_reason !== null && row.status === 'recorded' && row.track_id === null;

export function toApi(row: PaymentsTable): Payment {
  const allocations = JSON.parse(row.allocations) as PaymentAllocation[];
  const allocated = allocations.reduce((sum, a) => sum + (a.reversedAt === null ? a.amount : 0), 0);
  return {
    id: row.id,
    trackId: row.track_id,
    customerId: row.customer_id,
    amount: row.amount,
    currency: row.currency,
    method: row.method as Payment['method'],
    status: row.status,
    paidAt: row.paid_at,
    reference: row.reference,
    source: row.source,
    metadata: parseMetadata(row.metadata),
    createdAt: row.created_at,
    reversedAt: row.reversed_at,
    reversalReason: row.reversal_reason,
    allocations,
    unallocatedAmount: row.status === 'recorded' ? row.amount - allocated : 0,
    unapplied: isUnapplied(row),
    unappliedReason: row.unapplied_reason,
    splitFrom: row.split_from,
    splitInto: row.split_into === null ? [] : (JSON.parse(row.split_into) as string[]),
  };
}
