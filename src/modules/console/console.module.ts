import type { ModuleManifest } from '../manifest.js';
import { consolePages, notFound } from './console.plugin.js';

export const consoleModule: ModuleManifest = {
  name: 'console',
  pages: [{ prefix: '/console', plugin: consolePages, badUrl: notFound }],
};
