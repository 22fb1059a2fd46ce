import type { Config } from './config.js';
import type { DialectName } from './db/dialect.js';
import type { Db } from './db/schema.js';
import type { Clock } from './lib/clock.js';

/** What services and jobs need from the running process; built once and passed in. */
export interface AppContext {
  config: Readonly<Config>;
  db: Db;
  dialect: DialectName;
  clock: Clock;
}
