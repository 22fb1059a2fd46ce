// The schedules module's public face.
// biome-ignore-all assist/source/organizeImports: one export per line
export { overdueNowParts } from './obligations.overdue.js';
export { findById as findObligation } from './obligations.repository.js';
export { markObligationsRolled } from './obligations.rollup-marks.js';
export { moveRemindStage } from './obligations.stages.js';
export { nextToRemind } from './obligations.stages.js';
export { obligationsToRemind } from './obligations.stages.js';
export { findRow as findScheduleRow } from './schedules.repository.js';
export type { ObligationAllocation } from './schedules.table.js';
export type { ObligationsTable } from './schedules.table.js';
export type { SchedulesTable } from './schedules.table.js';
export { OPEN_OBLIGATION } from './schedules.table.js';
