// The schedules module's public face.

export { overdueNowParts } from './obligations.overdue.js';
export { markObligationsRolled } from './obligations.rollup-marks.js';
export type { ObligationAllocation } from './schedules.table.js';
export { OPEN_OBLIGATION } from './schedules.table.js';
