import type { Kysely, Transaction } from 'kysely';
import type { IdempotencyKeysTable } from '../http/idempotency.table.js';
import type { JobsTable } from '../jobs/jobs.table.js';
import type { ApiUsageTable } from '../modules/account/usage.table.js';
import type { ApiKeysTable } from '../modules/api-keys/api-keys.table.js';
import type { CustomersTable } from '../modules/customers/customers.table.js';
import type { EventsTable } from '../modules/events/events.table.js';
import type { LedgerEntriesTable } from '../modules/ledger/ledger.table.js';
import type { PaymentsTable } from '../modules/payments/payments.table.js';
import type { TracksTable } from '../modules/tracks/tracks.table.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../modules/webhooks/webhooks.table.js';
import type { WorkspacesTable } from '../modules/workspaces/workspaces.table.js';

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  customers: CustomersTable;
  tracks: TracksTable;
  payments: PaymentsTable;
  ledger_entries: LedgerEntriesTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  jobs: JobsTable;
  idempotency_keys: IdempotencyKeysTable;
  api_usage: ApiUsageTable;
}

/** The root database handle. */
export type Db = Kysely<Database>;
/** Either the root handle or a transaction: what repository functions take first. */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;
