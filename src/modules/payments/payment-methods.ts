import type { PAYMENT_METHODS } from './payments.schemas.js';

/** The ways a payment is made, as the API names them, in words, in the order forms offer them. */
export const PAYMENT_METHOD_WORDS: Readonly<Record<(typeof PAYMENT_METHODS)[number], string>> = {
  cash: 'Cash',
  bank_transfer: 'Bank transfer',
  mobile_money: 'Mobile money',
  pos: 'POS (card terminal)',
  cheque: 'Cheque',
  card: 'Card',
  direct_debit: 'Direct debit',
  gateway_checkout: 'Online checkout',
  virtual_account: 'Transfer to a virtual account',
  other: 'Other',
};

export const methodInWords = (method: string) =>
  PAYMENT_METHOD_WORDS[method as keyof typeof PAYMENT_METHOD_WORDS] ?? method.replaceAll('_', ' ');
