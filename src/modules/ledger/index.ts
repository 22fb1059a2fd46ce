// The ledger module's public face.

export { markLedgerEntriesRolledUp } from './ledger.rollup-marks.js';
