// The tracks module's public face.
export { customerOfTrack } from './tracks.customer-of.js';
export { findById as findTrack } from './tracks.repository.js';
export { markTracksRolled } from './tracks.rollup-marks.js';
export type { TracksTable } from './tracks.table.js';
