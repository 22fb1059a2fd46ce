import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { countByStatus, listJobs } from '../jobs/jobs.repository.js';
import type { JobStatus } from '../jobs/jobs.table.js';
import type { Command } from './command.js';
import { withDatabase } from './database.js';
import { formatTable, printJson, println, UsageError } from './io.js';

const STATUSES: readonly JobStatus[] = ['failed', 'pending', 'running'];
const MAX_LIMIT = 1000;
const ERROR_COLUMN = 80;

export const jobsCommand: Command = {
  name: 'jobs',
  synopsis: 'jobs [--status failed|pending|running|all] [--limit N] [--json]',
  summary: 'List background jobs: by default the failed ones, which gave up after their last attempt',
  help: `Usage: paytrack jobs [--status failed|pending|running|all] [--limit N] [--json]

Counts the background jobs by status and lists the most recently changed ones of a
status, with their attempts and last error. Done jobs are not kept.

  --status S   failed (the default), pending, running or all
  --limit N    how many to list, 1 to ${MAX_LIMIT} (default 50)
  --json       print {"counts": {...}, "jobs": [...]} as JSON`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        status: { type: 'string', default: 'failed' },
        limit: { type: 'string', default: '50' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const status = values.status === 'all' ? undefined : (values.status as JobStatus);
    if (status !== undefined && !STATUSES.includes(status)) {
      throw new UsageError(
        `--status must be one of ${[...STATUSES, 'all'].join(', ')}, got '${values.status}'`,
      );
    }
    const limit = /^[0-9]+$/.test(values.limit) ? Number(values.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new UsageError(`--limit must be 1 to ${MAX_LIMIT}`);

    const config = loadConfig(io.env);
    const { counts, jobs } = await withDatabase(config, async ({ ctx }) => ({
      counts: await countByStatus(ctx.db),
      jobs: await listJobs(ctx.db, status, limit),
    }));
    const listed = jobs.map((job) => ({
      id: job.id,
      name: job.name,
      status: job.status,
      attempts: job.attempts,
      runAt: job.run_at,
      updatedAt: job.updated_at,
      lastError: job.last_error,
      payload: JSON.parse(job.payload) as unknown,
    }));
    const allCounts = Object.fromEntries(STATUSES.map((s) => [s, counts[s] ?? 0]));

    if (values.json) {
      printJson(io.stdout, { counts: allCounts, jobs: listed });
      return 0;
    }
    println(io.stdout, `Jobs: ${STATUSES.map((s) => `${allCounts[s]} ${s}`).join(', ')}.`);
    if (listed.length === 0) {
      println(io.stdout, status ? `No ${status} jobs.` : 'No jobs.');
      return 0;
    }
    const oneLine = (text: string | null) => {
      const line = (text ?? '').replace(/\s+/g, ' ');
      return line.length > ERROR_COLUMN ? `${line.slice(0, ERROR_COLUMN - 1)}…` : line;
    };
    println(
      io.stdout,
      formatTable(
        ['ID', 'NAME', 'STATUS', 'ATTEMPTS', 'UPDATED', 'LAST ERROR'],
        listed.map((job) => [
          job.id,
          job.name,
          job.status,
          String(job.attempts),
          job.updatedAt,
          oneLine(job.lastError),
        ]),
      ),
    );
    return 0;
  },
};
