// The tracks module's public face.

export { markTracksRolled } from './tracks.rollup-marks.js';
