export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

export interface JobsTable {
  id: string;
  name: string;
  payload: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_at: string;
  /** A running job whose lock has expired (its worker died) can be claimed again. */
  locked_until: string | null;
  last_error: string | null;
  /** Enqueueing the same dedupe key twice adds one job. */
  dedupe_key: string | null;
  created_at: string;
  updated_at: string;
}
