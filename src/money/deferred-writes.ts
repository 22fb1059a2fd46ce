import type { EventsTable } from '../outbox/events.table.js';

/** A part of a payment paid into an obligation that stays open after it. */
export interface ObligationPart {
  id: string;
  part: number;
  /** The obligation's allocations with this part added (JSON). */
  allocations: string;
  now: string;
}

/**
 * Writes a payment leaves for its last statement instead of making each on its own: the events of its balance
 * change (one insert with the payment's own event), and on PostgreSQL its part in an obligation that stays open
 * (`paymentStatement`). Only a part that leaves its obligation open can wait: nothing read later in the payment
 * depends on it, while an obligation paid off has its own entry and event, and a plan paid off cancels what
 * stays open.
 */
export interface DeferredWrites {
  events: EventsTable[];
  /** Null: the slot for one part is free (PostgreSQL); undefined: every part is written at once (SQLite). */
  obligationPart: ObligationPart | null | undefined;
}
