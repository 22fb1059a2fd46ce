import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Frozen. PostgreSQL only: `open_obligations_of(track_id)`, what a payment on a plan allocates to (the plan's
 * open obligations, in the order money pays them, as JSON), read in the statement that moves the plan's balance
 * instead of a round trip of its own. VOLATILE on purpose: PostgreSQL gives each query in such a function a fresh
 * snapshot, so called after the plan's row is locked it sees what the payment before on that plan committed,
 * as a statement of its own would. A STABLE function would read the calling statement's older snapshot.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    create function open_obligations_of(of_track text) returns json
    language plpgsql volatile as $$
    begin
      return (select coalesce(
        json_agg(
          json_build_object(
            'id', id, 'schedule_id', schedule_id, 'amount', amount, 'amount_paid', amount_paid,
            'allocations', allocations, 'status', status
          )
          order by due_date, id
        ),
        '[]'::json
      )
      from obligations
      where track_id = of_track and status in ('pending', 'partially_paid', 'overdue'));
    end
    $$`.execute(db);
}
