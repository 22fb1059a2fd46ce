import type { CliIo } from './io.js';

export interface Command {
  /** As typed after `paytrack`, e.g. `key create`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The synopsis shown in the command list, e.g. `key revoke KEY_ID`. */
  synopsis: string;
  /** Full text for `paytrack <command> --help`. */
  help: string;
  /** Returns the exit status. */
  run(args: string[], io: CliIo): Promise<number>;
}
