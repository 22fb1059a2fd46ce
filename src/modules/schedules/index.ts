// The schedules module's public face.
export { claimCollection, lockOpenCheckout, saveCheckout } from './obligations.collection.js';
export { overdueNowParts } from './obligations.overdue.js';
export {
  latestDueStage,
  REMINDER_STAGES,
  type ReminderStage,
  stageStart,
} from './obligations.remind-stages.js';
export { findById as findObligation } from './obligations.repository.js';
export { markObligationsRolled } from './obligations.rollup-marks.js';
export { type DueOfPlan, dueOfPlan } from './obligations.service.js';
export { moveRemindStage, nextToRemind, obligationsToRemind } from './obligations.stages.js';
export { findRow as findScheduleRow } from './schedules.repository.js';
export type { ObligationAllocation, ObligationsTable, SchedulesTable } from './schedules.table.js';
export { OPEN_OBLIGATION } from './schedules.table.js';
