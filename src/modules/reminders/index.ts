// The reminders module's public face.
export { type DeliveryReport, deliveryReported } from './reminders.receipts.js';
export { type BrokenPromise, remindOfBrokenPromise } from './reminders.broken-promise.js';
