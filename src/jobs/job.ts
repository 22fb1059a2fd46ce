import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Job, JobDefinition } from '../context.js';

export type { AnyJob, Job, JobContext, JobDefinition, JobResult, RunningJob } from '../context.js';

export function defineJob<S extends TSchema, R = never, L = undefined>(
  definition: JobDefinition<S, R, L>,
): Job<S, R, L> {
  const validator = Compile(definition.payload);
  return {
    ...definition,
    parse(payload) {
      if (!validator.Check(payload)) {
        const [first] = validator.Errors(payload);
        throw new Error(`payload of ${definition.name} is not valid: ${first?.message ?? 'unknown problem'}`);
      }
      return payload as Static<S>;
    },
  };
}

/** Exponential backoff: 10 s, 20 s, 40 s … capped at an hour. */
export function exponentialBackoff(attempt: number): number {
  return Math.min(10_000 * 2 ** (attempt - 1), 3_600_000);
}
