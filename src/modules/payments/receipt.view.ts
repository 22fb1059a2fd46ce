import type { BusinessCard } from '../workspaces/workspaces.service.js';

/** Whether a receipt still stands: a reversal or a refund marks it; the receipt itself never changes. */
export type ReceiptStanding = 'valid' | 'reversed' | 'refunded';

/** What a receipt shows: the facts of the money when it was recorded, and whether it still stands. */
export interface ReceiptView {
  business: BusinessCard;
  number: string;
  code: string;
  /** Its code as stored: what its links carry. */
  linkCode: string;
  paymentId: string;
  amount: number;
  currency: string;
  method: string;
  reference: string | null;
  /** Calendar date in the business's zone. */
  paidOn: string;
  customer: string | null;
  planTitle: string | null;
  /** The plan's balance right after the payment; null for money on no plan. */
  balanceAfter: number | null;
  standing: ReceiptStanding;
  /** When it stopped standing, as a date in the business's zone, and why the business said it was reversed. */
  endedOn: string | null;
  reversalReason: string | null;
  /** Test-mode money: no real money moved. */
  test: boolean;
}
