import { accountModule } from './account/account.module.js';
import { attemptsModule } from './attempts/attempts.module.js';
import { auditModule } from './audit/audit.module.js';
import { collectionsModule } from './collections/collections.module.js';
import { consoleModule } from './console/console.module.js';
import { customersModule } from './customers/customers.module.js';
import { eventsModule } from './events/events.module.js';
import { exportsModule } from './exports/exports.module.js';
import { ledgerModule } from './ledger/ledger.module.js';
import { mandatesModule } from './mandates/mandates.module.js';
import type { ModuleManifest } from './manifest.js';
import { messagesModule } from './messages/messages.module.js';
import { paymentsModule } from './payments/payments.module.js';
import { peopleModule } from './people/people.module.js';
import { portalModule } from './portal/portal.module.js';
import { providersModule } from './providers/providers.module.js';
import { remindersModule } from './reminders/reminders.module.js';
import { reportsModule } from './reports/reports.module.js';
import { schedulesModule } from './schedules/schedules.module.js';
import { statementsModule } from './statements/statements.module.js';
import { testClockModule } from './test-clock/test-clock.module.js';
import { tracksModule } from './tracks/tracks.module.js';
import { webhooksModule } from './webhooks/webhooks.module.js';

/** Every feature module, once. A new module is its folder, one line here and its migration. */
export const modules: readonly ModuleManifest[] = [
  accountModule,
  testClockModule,
  customersModule,
  statementsModule,
  tracksModule,
  paymentsModule,
  portalModule,
  schedulesModule,
  collectionsModule,
  mandatesModule,
  attemptsModule,
  providersModule,
  remindersModule,
  messagesModule,
  // Before reports: its clean-up sweep ran before the rollup when exports were a part of reports.
  exportsModule,
  reportsModule,
  ledgerModule,
  webhooksModule,
  eventsModule,
  peopleModule,
  auditModule,
  consoleModule,
];
