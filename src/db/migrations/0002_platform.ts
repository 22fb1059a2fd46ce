import { type Kysely, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

/**
 * Frozen. The platform under the collection features: jobs with leases and groups, an outbox relay, payment
 * reversals, webhook subscriptions from the time an endpoint is enabled, and test clocks.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const id = sql.raw(t.id);
  const instant = sql.raw(t.instant);

  await db.schema.alterTable('jobs').addColumn('group_key', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('locked_by', 'text').execute();

  await db.schema.alterTable('events').addColumn('dispatched_at', instant).execute();
  await db
    .updateTable('events')
    .set({ dispatched_at: sql.ref('created_at') })
    .execute();
  await db.schema
    .createIndex('events_undispatched')
    .on('events')
    .column('id')
    .where(sql.ref('dispatched_at'), 'is', null)
    .execute();

  // Old fan-out jobs: their events go back to the relay; a test event's goes straight to its endpoint.
  const dispatches = await db
    .selectFrom('jobs')
    .select(['id', 'payload', 'created_at', 'updated_at'])
    .where('name', '=', 'events.dispatch')
    .where('status', 'in', ['pending', 'running'])
    .execute();
  for (const job of dispatches) {
    const payload = JSON.parse(job.payload) as { eventId: string; endpointId?: string };
    if (payload.endpointId) {
      await db
        .updateTable('jobs')
        .set({
          name: 'webhooks.deliver',
          status: 'pending',
          attempts: 0,
          max_attempts: 0,
          locked_until: null,
          group_key: `webhook:${payload.endpointId}`,
        })
        .where('id', '=', job.id)
        .execute();
    } else {
      await db.updateTable('events').set({ dispatched_at: null }).where('id', '=', payload.eventId).execute();
      await db.deleteFrom('jobs').where('id', '=', job.id).execute();
    }
  }
  await db.deleteFrom('jobs').where('name', '=', 'events.dispatch').execute();
  await db.deleteFrom('jobs').where('status', '=', 'done').execute();
  const deliveries = await db
    .selectFrom('jobs')
    .select(['id', 'payload'])
    .where('name', '=', 'webhooks.deliver')
    .where('group_key', 'is', null)
    .execute();
  for (const job of deliveries) {
    const { endpointId } = JSON.parse(job.payload) as { endpointId: string };
    await db
      .updateTable('jobs')
      .set({ group_key: `webhook:${endpointId}` })
      .where('id', '=', job.id)
      .execute();
  }

  await db.schema.alterTable('payments').addColumn('reversed_at', instant).execute();
  await db.schema.alterTable('payments').addColumn('reversal_reason', 'text').execute();

  await db.schema.alterTable('webhook_endpoints').addColumn('enabled_at', instant).execute();
  await db
    .updateTable('webhook_endpoints')
    .set({ enabled_at: sql.ref('created_at') })
    .where('status', '=', 'enabled')
    .execute();

  await db.schema
    .createTable('test_clocks')
    .addColumn('workspace_id', id, (c) => c.primaryKey().references('workspaces.id'))
    .addColumn('offset_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', instant, (c) => c.notNull())
    .execute();
}
