import type { Trx } from '../db/schema.js';
import { stringifyMetadata } from '../lib/json.js';
import { newReceiptCode } from '../lib/receipt-codes.js';
import type { Tenant } from '../lib/tenant.js';
import { referenceKey } from '../lib/text.js';
import { takeReceiptNumber } from '../modules/payments/payments.repository.js';
import type { Payment } from '../modules/payments/payments.schemas.js';
import type {
  PaymentAllocation,
  PaymentSource,
  PaymentsTable,
  UnappliedReason,
} from '../modules/payments/payments.table.js';

export interface IssuedReceipt {
  number: number;
  code: string;
}

/**
 * A receipt for fresh money: the workspace mode's next number and a new verification code. Taken as late as the
 * payment allows, since the counter row it locks serialises the workspace's payments until the commit.
 */
export async function issueReceipt(trx: Trx, tenant: Tenant): Promise<IssuedReceipt> {
  return { number: await takeReceiptNumber(trx, tenant), code: newReceiptCode() };
}

/** What every new payment row shares, whatever way the money came in. */
export interface PaymentFacts {
  amount: number;
  currency: string;
  method: Payment['method'];
  /** Stored form (`toInstant`). */
  paidAt: string;
  reference: string | null;
  source: PaymentSource;
  metadata: Record<string, string> | undefined;
  /** The payment this one was split from (the one whose excess it is, or the unapplied one it is a part of). */
  splitFrom?: string | null;
  /** Its id, when the caller had to know it first (a split names its parts). */
  id?: string;
  /** The provider that took the money, and its reference of it (what a refund names). */
  provider?: string | null;
  providerReference?: string | null;
}

/** A new payment's row: recorded, with its facts and where the money was placed. */
export function paymentRow(
  tenant: Tenant,
  id: string,
  at: Date,
  facts: PaymentFacts,
  placed: {
    trackId: string | null;
    customerId: string | null;
    allocations: PaymentAllocation[];
    unappliedReason: UnappliedReason | null;
    /** Fresh money's receipt (`issueReceipt`); null for a part split from money already receipted. */
    receipt: IssuedReceipt | null;
    balanceAfter: number | null;
  },
): PaymentsTable {
  return {
    id,
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    track_id: placed.trackId,
    customer_id: placed.customerId,
    amount: facts.amount,
    currency: facts.currency,
    method: facts.method,
    status: 'recorded',
    paid_at: facts.paidAt,
    reference: facts.reference,
    reference_key: facts.reference === null ? null : referenceKey(facts.reference),
    source: facts.source,
    metadata: stringifyMetadata(facts.metadata),
    created_at: at.toISOString(),
    reversed_at: null,
    reversal_reason: null,
    allocations: JSON.stringify(placed.allocations),
    unapplied_reason: placed.unappliedReason,
    split_from: facts.splitFrom ?? null,
    split_into: null,
    provider: facts.provider ?? null,
    provider_reference: facts.providerReference ?? null,
    refund_status: null,
    refund_provider_reference: null,
    refund_failure_reason: null,
    receipt_number: placed.receipt?.number ?? null,
    receipt_code: placed.receipt?.code ?? null,
    balance_after: placed.balanceAfter,
  };
}
