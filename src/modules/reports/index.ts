// The reports module's public face.

export { customersByIds, plansByIds } from './reports.repository.js';
export { reportRows } from './reports.rows.js';
