// The attempts module's public face.
export { isBeingCharged } from './attempts.in-progress.js';
