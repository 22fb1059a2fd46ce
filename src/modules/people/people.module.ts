import type { ModuleManifest } from '../manifest.js';
import { consolePages, notFound } from './console.plugin.js';

export const peopleModule: ModuleManifest = {
  name: 'people',
  pages: [{ prefix: '/console', plugin: consolePages, badUrl: notFound }],
};
