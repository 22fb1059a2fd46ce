// The payments module's public face.

export { findById as findPayment } from './payments.repository.js';
export { markPaymentsRolled } from './payments.rollup-marks.js';
export { paidOnPlanSince } from './payments.since.js';
export { receiptLinkOf, receiptOfPayment } from './receipts.service.js';
