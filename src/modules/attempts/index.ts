// The attempts module's public face.
// biome-ignore-all assist/source/organizeImports: one export per line, so additions from several branches merge
export { isBeingCharged } from './attempts.in-progress.js';
