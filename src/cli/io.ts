/** Where a command writes; `process.stdout` in the binary, a string collector in tests. */
export interface Output {
  write(text: string): unknown;
}

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: Output;
  stderr: Output;
  /** `serve` and `worker` run until this aborts; without it they stop on SIGINT or SIGTERM. */
  signal?: AbortSignal;
  /** Where `-` reads a secret from; process.stdin when unset. */
  stdin?: NodeJS.ReadableStream;
}

/** The command line was wrong: exit status 2 and a pointer to `--help`. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command was understood but cannot be done (unknown workspace or key): exit status 1. */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}

export function println(out: Output, text = ''): void {
  out.write(`${text}\n`);
}

export function printJson(out: Output, value: unknown): void {
  out.write(`${JSON.stringify(value)}\n`);
}

export function requireOption(value: string | undefined, option: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${option} is required`);
  return value;
}

/** Left-aligned columns separated by two spaces. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
