// The tracks module's public face.
// biome-ignore-all assist/source/organizeImports: one export per line, so additions from several branches merge
export { customerOfTrack } from './tracks.customer-of.js';
export { findById as findTrack } from './tracks.repository.js';
export type { TracksTable } from './tracks.table.js';
