import { parseMetadata } from '../../lib/json.js';
import { displayReceiptCode, receiptNumberText, receiptUrl } from '../../lib/receipt-codes.js';
import type { Payment } from './payments.schemas.js';
import type { PaymentAllocation, PaymentsTable } from './payments.table.js';

/** Money no plan took yet: the customer's credit. Its reason stays once it is applied. */
export const isUnapplied = (row: Pick<PaymentsTable, 'unapplied_reason' | 'status' | 'track_id'>) =>
  row.unapplied_reason !== null && row.status === 'recorded' && row.track_id === null;

/** The columns of a payment's summary: a read that lists payments without their details selects just these. */
export const PAYMENT_SUMMARY_COLUMNS = [
  'id',
  'track_id',
  'customer_id',
  'amount',
  'currency',
  'method',
  'status',
  'paid_at',
  'reference',
  'source',
  'created_at',
  'reversed_at',
] as const;
export type PaymentSummaryRow = Pick<PaymentsTable, (typeof PAYMENT_SUMMARY_COLUMNS)[number]>;
export type PaymentSummary = Pick<
  Payment,
  | 'id'
  | 'trackId'
  | 'customerId'
  | 'amount'
  | 'currency'
  | 'method'
  | 'status'
  | 'paidAt'
  | 'reference'
  | 'source'
  | 'createdAt'
  | 'reversedAt'
>;

/** A payment's summary with its wire names: the start of its API form, and what exports write of it. */
export function toSummary(row: PaymentSummaryRow): PaymentSummary {
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
    createdAt: row.created_at,
    reversedAt: row.reversed_at,
  };
}

/** A payment's receipt as records show it: its number, its code as printed, and the page that verifies it. */
export function receiptOf(row: Pick<PaymentsTable, 'receipt_number' | 'receipt_code'>): Payment['receipt'] {
  if (row.receipt_number === null || row.receipt_code === null) return null;
  return {
    number: receiptNumberText(row.receipt_number),
    code: displayReceiptCode(row.receipt_code),
    url: receiptUrl(row.receipt_code),
  };
}

export function toApi(row: PaymentsTable): Payment {
  const allocations = JSON.parse(row.allocations) as PaymentAllocation[];
  const allocated = allocations.reduce((sum, a) => sum + (a.reversedAt === null ? a.amount : 0), 0);
  const { createdAt, reversedAt, ...summary } = toSummary(row);
  return {
    ...summary,
    metadata: parseMetadata(row.metadata),
    createdAt,
    reversedAt,
    reversalReason: row.reversal_reason,
    allocations,
    unallocatedAmount: row.status === 'recorded' ? row.amount - allocated : 0,
    unapplied: isUnapplied(row),
    unappliedReason: row.unapplied_reason,
    splitFrom: row.split_from,
    splitInto: row.split_into === null ? [] : (JSON.parse(row.split_into) as string[]),
    provider: row.provider,
    providerReference: row.provider_reference,
    refund:
      row.refund_status === null
        ? null
        : {
            status: row.refund_status,
            providerReference: row.refund_provider_reference,
            failureReason: row.refund_failure_reason,
          },
    receipt: receiptOf(row),
  };
}
