import type { Kysely, Transaction } from 'kysely';

/**
 * Every table, by name. Each table file adds its own table here by declaration merging, so a new module
 * brings its tables without editing this file:
 *
 *   declare module '../../db/schema.js' { interface Database { customers: CustomersTable } }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the table files through declaration merging
export interface Database {}

/** The root database handle. */
export type Db = Kysely<Database>;
/** A transaction: what the unit of work hands to the code that runs inside it. */
export type Trx = Transaction<Database>;
/** Either the root handle or a transaction: what repository functions take first. */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;
