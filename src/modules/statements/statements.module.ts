import type { ModuleManifest } from '../manifest.js';
import { statementsRoutes } from './statements.routes.js';

/** Customer statements: a customer's charges, payments and balances over a period, as JSON or a PDF. */
export const statementsModule: ModuleManifest = { name: 'statements', routes: statementsRoutes };
