import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { auditPages } from './audit.pages.js';
import { customersSection } from './customers.section.js';
import { overviewPages } from './overview.pages.js';
import { paymentsPages } from './payments.pages.js';
import { plansPages } from './plans.pages.js';
import { settingsPages } from './settings.pages.js';

/** A section of the console: its pages, registered under /console. */
export type ConsoleSection = (app: FastifyInstance, ctx: AppContext) => Promise<void> | void;

export const CONSOLE_SECTIONS: readonly ConsoleSection[] = [
  overviewPages,
  plansPages,
  paymentsPages,
  auditPages,
  settingsPages,
  customersSection,
];
