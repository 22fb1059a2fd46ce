// The payments module's public face.

export { markPaymentsRolled } from './payments.rollup-marks.js';
export { receiptLinkOf } from './receipts.service.js';
