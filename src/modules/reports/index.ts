// The reports module's public face.

export { AGEING_BUCKETS, type AgeingBucket, ageingBucket, daysOverdue } from './reports.period.js';
export { customersByIds, plansByIds } from './reports.repository.js';
export { reportRows } from './reports.rows.js';
