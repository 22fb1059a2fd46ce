// The mandates module's public face.
// biome-ignore-all assist/source/organizeImports: one export per line, so additions from several branches merge
export { payerOfSchedule } from './mandates.payer-of.js';
