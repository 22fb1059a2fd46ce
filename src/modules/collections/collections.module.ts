import type { ModuleManifest } from '../manifest.js';

/**
 * The collections workflow: promises to pay and disputes, which hold back reminders, attempts and late fees on
 * what they cover (`holds.ts`), and resolve with events of their own.
 */
export const collectionsModule: ModuleManifest = { name: 'collections' };
