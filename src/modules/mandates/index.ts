// The mandates module's public face.

export { authorizationAnswered, mandateOfAuthorization } from './consent.provider.js';
export { payerOfSchedule } from './mandates.payer-of.js';
