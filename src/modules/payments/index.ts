// The payments module's public face.

export { markPaymentsRolled } from './payments.rollup-marks.js';
export { paidOnPlanSince } from './payments.since.js';
export { receiptLinkOf, receiptOfPayment } from './receipts.service.js';
