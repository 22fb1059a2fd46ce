import type { ModuleManifest } from '../manifest.js';
import { ledgerRoutes } from './ledger.routes.js';

export const ledgerModule: ModuleManifest = { name: 'ledger', routes: ledgerRoutes };
