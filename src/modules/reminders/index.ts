// The reminders module's public face.

export { type BrokenPromise, remindOfBrokenPromise } from './reminders.broken-promise.js';
export { type DeliveryReport, deliveryReported } from './reminders.receipts.js';
