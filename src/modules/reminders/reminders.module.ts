import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { sendRemindersJob } from './reminders.job.js';
import { receiptMessages } from './reminders.receipt-messages.js';
import { remindersRoutes } from './reminders.routes.js';
import { Reminder } from './reminders.schemas.js';
import { reminderStagesSweep, sendRemindersSweep } from './reminders.sweeps.js';

const events = {
  'reminder.sent': Reminder,
  'reminder.failed': Reminder,
  'reminder.delivered': Reminder,
  'reminder.undelivered': Reminder,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

export const remindersModule: ModuleManifest = {
  name: 'reminders',
  routes: remindersRoutes,
  events,
  jobs: [sendRemindersJob],
  sweeps: [reminderStagesSweep, sendRemindersSweep],
  subscribers: [receiptMessages],
};
