import type { Static, TSchema } from 'typebox';

/**
 * Every event type and the object it carries. Each module declares its own events and adds them here by
 * declaration merging, so `recordEvent` checks the type name and the object at compile time:
 *
 *   declare module '../../outbox/catalog.js' { interface EventCatalog extends EventPayloads<typeof events> {} }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the modules through declaration merging
export interface EventCatalog {}

export type EventType = keyof EventCatalog & string;

/** A module's events: type name -> schema of the object the event carries. */
export type EventSchemas = Record<string, TSchema>;

export type EventPayloads<T extends EventSchemas> = { [K in keyof T]: Static<T[K]> };
