import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Ran {
  stdout: string;
  stderr: string;
}

/**
 * One bash session, as a reader's terminal: each block is sourced into it, so the variables and functions one
 * block defines are there for the next. It runs with `errexit` and `pipefail`, so a command of a block that fails
 * fails the block, where a reader might not notice.
 */
export class Shell {
  private readonly bash: ChildProcessWithoutNullStreams;
  private readonly dir = mkdtempSync(join(tmpdir(), 'paytrack-readme-'));
  private pending = '';
  private waiting: ((line: string) => void) | null = null;
  private exited: string | null = null;
  private count = 0;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.bash.stdout.setEncoding('utf8');
    this.bash.stdout.on('data', (chunk: string) => {
      this.pending += chunk;
      const end = this.pending.indexOf('\n');
      if (end >= 0 && this.waiting) {
        const line = this.pending.slice(0, end);
        this.pending = this.pending.slice(end + 1);
        this.waiting(line);
      }
    });
    this.bash.on('exit', (code, signal) => {
      this.exited = `bash exited (${signal ?? `status ${code}`}): a command of the block failed`;
      this.waiting?.('');
    });
    this.bash.stdin.write('set -eo pipefail\n');
  }

  /** Runs `code` as if pasted; rejects when a command fails or it takes longer than `timeoutMs`. */
  async run(code: string, timeoutMs: number): Promise<Ran> {
    const n = ++this.count;
    const file = (suffix: string) => join(this.dir, `block-${n}.${suffix}`);
    writeFileSync(file('sh'), `${code}\n`);
    const done = new Promise<string>((resolve) => {
      this.waiting = resolve;
    });
    this.bash.stdin.write(
      `source ${file('sh')} > ${file('out')} 2> ${file('err')}; echo "readme-block-done $?"\n`,
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const line = await Promise.race([done, timeout]);
    clearTimeout(timer);
    this.waiting = null;
    const read = (suffix: string) => {
      try {
        return readFileSync(file(suffix), 'utf8');
      } catch {
        return '';
      }
    };
    const ran = { stdout: read('out'), stderr: read('err') };
    if (line === 'timeout') throw new BlockFailed(`did not finish within ${timeoutMs / 1000} s`, ran);
    if (this.exited) throw new BlockFailed(this.exited, ran);
    return ran;
  }

  close(): void {
    this.bash.kill('SIGKILL');
  }
}

export class BlockFailed extends Error {
  constructor(
    message: string,
    readonly ran: Ran,
  ) {
    super(message);
  }
}
