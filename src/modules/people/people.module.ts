import type { ModuleManifest } from '../manifest.js';

/** People, their roles and sessions; the console (its own module) shows them. */
export const peopleModule: ModuleManifest = { name: 'people' };
