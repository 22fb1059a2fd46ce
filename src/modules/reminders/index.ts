// The reminders module's public face.
export { type DeliveryReport, deliveryReported } from './reminders.receipts.js';
