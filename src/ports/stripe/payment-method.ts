import type Stripe from 'stripe';
import type { PaymentMethodSummary } from '../live-provider.js';

/**
 * What a saved PaymentMethod is, safe to show: its type, the bank (or the card's brand) and the last four digits.
 * Stripe never returns full numbers on these objects; we keep only the fields named here.
 */
export function summarizePaymentMethod(method: Stripe.PaymentMethod): PaymentMethodSummary {
  switch (method.type) {
    case 'card':
      return { type: 'card', bank: method.card?.brand ?? null, last4: method.card?.last4 ?? null };
    case 'sepa_debit':
      return {
        type: 'sepa_debit',
        bank: method.sepa_debit?.bank_code ?? null,
        last4: method.sepa_debit?.last4 ?? null,
      };
    case 'bacs_debit':
      return {
        type: 'bacs_debit',
        bank: method.bacs_debit?.sort_code ?? null,
        last4: method.bacs_debit?.last4 ?? null,
      };
    case 'us_bank_account':
      return {
        type: 'us_bank_account',
        bank: method.us_bank_account?.bank_name ?? null,
        last4: method.us_bank_account?.last4 ?? null,
      };
    default:
      return { type: method.type, bank: null, last4: null };
  }
}
