// The mandates module's public face.
export { payerOfSchedule } from './mandates.payer-of.js';
