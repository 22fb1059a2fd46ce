export type JobStatus = 'pending' | 'running' | 'failed';

/** Background work, written in the same transaction as the change that causes it. Done jobs are deleted. */
export interface JobsTable {
  id: string;
  name: string;
  payload: string;
  status: JobStatus;
  /** Runs so far, counting the one under way. */
  attempts: number;
  /** 0: the job definition's own limit. */
  max_attempts: number;
  run_at: string;
  /** The worker holding a running job, and until when; a lease that expires (its worker died) is taken over. */
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  /** Jobs of one group (one webhook endpoint, say) run at most the definition's group concurrency at once. */
  group_key: string | null;
  /** The job key: a second job with the same key is not added while the first exists. */
  dedupe_key: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../db/schema.js' {
  interface Database {
    jobs: JobsTable;
  }
}
