import { type QueryCreator, sql } from 'kysely';
import { dialectOf } from '../db/dialect.js';
import type { Database, DbOrTrx } from '../db/schema.js';
import { inTenant } from '../db/scoping.js';
import { rowsOf, shaped } from '../db/shaped-statements.js';
import type { Tenant, TenantRef } from '../lib/tenant.js';
import { appendEntry, entryRow } from '../modules/ledger/ledger.service.js';
import type { LedgerEntriesTable, LedgerEntryType } from '../modules/ledger/ledger.table.js';
import type { ObligationsTable } from '../modules/schedules/schedules.table.js';
import { toApi } from '../modules/tracks/tracks.mapper.js';
import type { Track } from '../modules/tracks/tracks.schemas.js';
import type { TrackStatus, TracksTable } from '../modules/tracks/tracks.table.js';
import type { EventsTable } from '../outbox/events.table.js';
import { eventRow, recordEvents } from '../outbox/outbox.js';

export interface BalanceChange {
  trackId: string;
  /** Change to what the plan charges: an adjustment of its amount. */
  amountDelta: number;
  /** Change to what has been paid: a payment adds, a reversal takes away. */
  paidDelta: number;
  /** The states the plan may be in for this change. */
  from: readonly TrackStatus[];
  entry: { type: LedgerEntryType; occurredAt?: string; refs: Record<string, string> };
  /** Old values of other fields the caller changed in the same transaction, for the one `track.updated`. */
  alsoChanged?: Partial<Track> | null;
  /**
   * PostgreSQL: the plan's open obligations are read by the statement that moves the balance, once the plan's row
   * is locked (`open_obligations_of`), and come back as `open`.
   */
  readOpen?: boolean;
}

/** An open obligation as a payment allocates to it. */
export type OpenObligation = Pick<
  ObligationsTable,
  'id' | 'schedule_id' | 'amount' | 'amount_paid' | 'allocations' | 'status'
>;

export type BalanceOutcome =
  | { ok: true; track: TracksTable; open?: OpenObligation[] }
  | { ok: false; reason: 'not_found' }
  /** The plan is in a state this change may not start from. */
  | { ok: false; reason: 'invalid_state'; track: TracksTable }
  /** The change would take the balance below 0 (a payment over the balance) or the paid total below 0. */
  | { ok: false; reason: 'out_of_range'; track: TracksTable };

/**
 * The money core: the only code that moves a plan's balance. Runs in the caller's transaction (a payment, a
 * reversal, an adjustment, later a collection or a provider notification): one conditional statement moves
 * amount, paid and balance together (concurrent changes queue on the row, none is lost, the balance never goes
 * below 0), then appends the ledger entry that carries the change and emits `track.updated` with the old
 * values, and `track.completed` when the plan is paid off. A completed plan whose balance goes up again is
 * active again.
 */
export async function applyBalanceChange(
  trx: DbOrTrx,
  tenant: Tenant,
  change: BalanceChange,
  /** Given, the change's events are left here for the caller to write in a later statement of its own. */
  deferredEvents?: EventsTable[],
): Promise<BalanceOutcome> {
  const net = change.amountDelta - change.paidDelta;
  const move: Move = {
    trackId: change.trackId,
    amountDelta: change.amountDelta,
    paidDelta: change.paidDelta,
    net,
    from: change.from,
    now: tenant.clock.now().toISOString(),
  };
  const ref = { workspaceId: tenant.workspaceId, mode: tenant.mode };
  const entry = {
    type: change.entry.type,
    amount: net,
    ...(change.entry.occurredAt ? { occurredAt: change.entry.occurredAt } : {}),
    refs: change.entry.refs,
  };
  const postgres = dialectOf(trx) === 'postgres';
  // PostgreSQL: the ledger entry is written by the same statement, from the row the update returns.
  let open: OpenObligation[] | undefined;
  let track: TracksTable | undefined;
  if (postgres) {
    const entryOfMove = entryRow(tenant, {
      ...entry,
      trackId: null,
      customerId: null,
      balanceAfter: null,
      currency: '',
    });
    const [moved] = await rowsOf(trx, moveWithEntry(trx, ref, move, entryOfMove, change.readOpen === true));
    if (moved && 'open_obligations' in moved) {
      const { open_obligations, ...row } = moved;
      open = open_obligations as OpenObligation[];
      track = row;
    } else track = moved;
  } else {
    const staying = change.from.includes('active') ? await rowsOf(trx, staysActive(trx, ref, move)) : [];
    track = staying[0] ?? (await rowsOf(trx, moveAlone(trx, ref, move)))[0];
  }
  if (!track) {
    const current = await trx
      .selectFrom('tracks')
      .selectAll()
      .where('id', '=', change.trackId)
      .where(inTenant(tenant))
      .executeTakeFirst();
    if (!current) return { ok: false, reason: 'not_found' };
    if (!change.from.includes(current.status)) return { ok: false, reason: 'invalid_state', track: current };
    return { ok: false, reason: 'out_of_range', track: current };
  }

  if (!postgres) {
    await appendEntry(trx, tenant, {
      ...entry,
      trackId: track.id,
      customerId: track.customer_id,
      balanceAfter: track.balance,
      currency: track.currency,
    });
  }
  if (net !== 0) {
    const balanceBefore = track.balance - net;
    const statusBefore: TrackStatus =
      track.status === 'archived' ? 'archived' : balanceBefore === 0 ? 'completed' : 'active';
    const api = toApi(track);
    const events = [
      eventRow(tenant, 'track.updated', api, {
        ...change.alsoChanged,
        ...(change.amountDelta !== 0 ? { amount: track.amount - change.amountDelta } : {}),
        ...(change.paidDelta !== 0 ? { amountPaid: track.amount_paid - change.paidDelta } : {}),
        balance: balanceBefore,
        ...(statusBefore !== track.status ? { status: statusBefore } : {}),
      }),
      ...(track.status === 'completed' ? [eventRow(tenant, 'track.completed', api)] : []),
    ];
    if (deferredEvents) deferredEvents.push(...events);
    else await recordEvents(trx, events);
  }
  return open ? { ok: true, track, open } : { ok: true, track };
}

/** What one change does to a plan's row: the values its statement binds. */
interface Move {
  trackId: string;
  amountDelta: number;
  paidDelta: number;
  net: number;
  from: readonly TrackStatus[];
  now: string;
}

/** The conditional update that moves a plan's amount, paid total and balance, and sets its status. */
function moveQuery(creator: QueryCreator<Database>, tenant: TenantRef, move: Move) {
  return creator
    .updateTable('tracks')
    .set({
      amount: sql`amount + ${move.amountDelta}`,
      amount_paid: sql`amount_paid + ${move.paidDelta}`,
      balance: sql`balance + ${move.net}`,
      status: sql`case when status = 'archived' then 'archived' when balance + ${move.net} = 0 then 'completed' else 'active' end`,
      updated_at: move.now,
    })
    .where('id', '=', move.trackId)
    .where(inTenant(tenant))
    .where('status', 'in', move.from)
    .where(sql<boolean>`balance + ${move.net} >= 0`)
    .where(sql<boolean>`amount_paid + ${move.paidDelta} >= 0`)
    .returningAll();
}

/** SQLite: the move on its own; the ledger entry follows in a statement of its own. */
const moveAlone = shaped((db, tenant: TenantRef, move: Move) => moveQuery(db, tenant, move));

/**
 * PostgreSQL: the move and its ledger entry in one statement (the entry takes the plan's columns from the row
 * the update returns), with the plan's open obligations read once its row is locked when `readOpen`.
 */
const moveWithEntry = shaped(
  (db, tenant: TenantRef, move: Move, entry: LedgerEntriesTable, readOpen: boolean) => {
    const query = db
      .with('moved', (creator) => moveQuery(creator, tenant, move))
      .with('entry', (creator) => entryOfMovedTrack(creator, entry))
      .selectFrom('moved')
      .selectAll();
    return readOpen
      ? query.select(sql<unknown>`open_obligations_of(moved.id)`.as('open_obligations'))
      : query;
  },
);

/**
 * SQLite: the move of an active plan that stays active, which sets no status. SQLite rewrites the entries of
 * every index whose columns an update sets, changed or not, and three indexes of plans hold the status (the
 * statuses, the active plans by due date, the rollup's marks). No row when the plan is not such a plan (not
 * active, or paid off by this change): the general move then decides.
 */
const staysActive = shaped((db, tenant: TenantRef, move: Move) =>
  db
    .updateTable('tracks')
    .set({
      amount: sql`amount + ${move.amountDelta}`,
      amount_paid: sql`amount_paid + ${move.paidDelta}`,
      balance: sql`balance + ${move.net}`,
      updated_at: move.now,
    })
    .where('id', '=', move.trackId)
    .where(inTenant(tenant))
    .where('status', '=', 'active')
    .where(sql<boolean>`balance + ${move.net} > 0`)
    .where(sql<boolean>`amount_paid + ${move.paidDelta} >= 0`)
    .returningAll(),
);

/** The ledger entry of the plan row a CTE named `moved` returns, for the statement that moved its balance. */
function entryOfMovedTrack(creator: QueryCreator<Database>, row: LedgerEntriesTable) {
  return creator
    .insertInto('ledger_entries')
    .columns([
      'id',
      'workspace_id',
      'mode',
      'type',
      'track_id',
      'customer_id',
      'amount',
      'balance_after',
      'currency',
      'occurred_at',
      'refs',
      'created_at',
    ])
    .expression(
      creator
        .selectFrom('moved' as 'tracks')
        .select([
          sql<string>`${row.id}::text`.as('id'),
          'workspace_id',
          'mode',
          sql<string>`${row.type}::text`.as('type'),
          'id as track_id',
          'customer_id',
          sql<number>`${row.amount}::bigint`.as('amount'),
          'balance as balance_after',
          'currency',
          sql<string>`${row.occurred_at}::timestamptz`.as('occurred_at'),
          sql<string>`${row.refs}::text`.as('refs'),
          sql<string>`${row.created_at}::timestamptz`.as('created_at'),
        ]),
    )
    .returning('id');
}
