// The customers module's public face.

export { markCustomersRolled } from './customers.rollup-marks.js';
