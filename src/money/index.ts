// The money layer's face: every operation that moves money or changes what is owed, each run in the caller's
// transaction. Modules import this file, never the files behind it.
export { receiveForCheckout, receiveForPayLink } from './collections.js';
export { chargeLateFee, waiveFee } from './late-fees.js';
export { moneyOfNotification } from './notified-money.js';
export { applyPayment, type NewPayment, type PaymentOutcome } from './payments.js';
export { syncWithPlan } from './plan-sync.js';
export { adjustPlanAmount, cancelSchedulesOfPlan } from './plans.js';
export { type Destination, type ProviderMoney, type Received, receiveProviderMoney } from './receive.js';
export { duplicateReference } from './references.js';
export { reversePayment } from './reversal.js';
export { completeIfDone } from './schedule-completion.js';
export { settlementFigures, settleWithQuote } from './settlement.js';
export { applyUnapplied } from './unapplied.js';
export {
  reverseWriteOff,
  type WriteOffRequest,
  type WriteOffsTable,
  writeOffOf,
  writeOffPlan,
} from './write-off.js';
