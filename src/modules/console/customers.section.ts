import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { customersPages } from './customers.pages.js';
import { remindersPages } from './reminders.pages.js';
import { todayPages } from './today.pages.js';

/** Today's work, customers and the reminder form: the pages of the people who collect. */
export function customersSection(app: FastifyInstance, ctx: AppContext) {
  todayPages(app, ctx);
  customersPages(app, ctx);
  remindersPages(app, ctx);
}
