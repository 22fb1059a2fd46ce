import type { ModuleManifest } from '../manifest.js';
import { auditRoutes } from './audit.routes.js';

export const auditModule: ModuleManifest = { name: 'audit', routes: auditRoutes };
