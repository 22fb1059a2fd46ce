import type { FastifyPluginAsync } from 'fastify';
import type { AppContext, Registry } from '../context.js';
import type { PageForBadUrl } from '../http/server-options.js';
import type { AnyJob } from '../jobs/job.js';
import type { SweepDefinition } from '../jobs/sweeps.js';
import type { EventSchemas } from '../outbox/catalog.js';
import type { EventSubscriber } from '../outbox/relay.js';

/** Everything a feature module plugs into the app: one per module, listed once in `modules/index.ts`. */
export interface ModuleManifest {
  name: string;
  /** Its HTTP routes, registered under /api/v1 behind authentication, rate limit, scopes and idempotency. */
  routes?: FastifyPluginAsync<{ ctx: AppContext }>;
  jobs?: readonly AnyJob[];
  sweeps?: readonly SweepDefinition[];
  /** The events it emits: type name -> schema of the object they carry. */
  events?: EventSchemas;
  subscribers?: readonly EventSubscriber[];
  /**
   * Pages for people rather than API clients (HTML, no key), each under its own path prefix outside /api/v1;
   * `badUrl` answers, as a page, an address under the prefix that cannot be routed at all (bad encoding).
   */
  pages?: readonly {
    prefix: string;
    plugin: FastifyPluginAsync<{ ctx: AppContext }>;
    badUrl?: PageForBadUrl['badUrl'];
  }[];
}

/** Adds the manifests up; a name used twice is a programming error caught at start. */
export function registryOf(
  manifests: readonly ModuleManifest[],
  infrastructure: { jobs: readonly AnyJob[]; sweeps: readonly SweepDefinition[] },
): Registry {
  const jobs = new Map<string, AnyJob>();
  for (const job of [...infrastructure.jobs, ...manifests.flatMap((m) => m.jobs ?? [])]) {
    if (jobs.has(job.name)) throw new Error(`job ${job.name} is defined twice`);
    jobs.set(job.name, job);
  }
  const sweeps = [...infrastructure.sweeps, ...manifests.flatMap((m) => m.sweeps ?? [])];
  const sweepNames = new Set(sweeps.map((s) => s.name));
  if (sweepNames.size !== sweeps.length) throw new Error('two sweeps share a name');
  const eventTypes = manifests.flatMap((m) => Object.keys(m.events ?? {}));
  if (new Set(eventTypes).size !== eventTypes.length)
    throw new Error('two modules declare the same event type');
  return {
    jobs,
    sweeps,
    subscribers: manifests.flatMap((m) => m.subscribers ?? []),
    eventTypes,
    eventSchemas: Object.assign({}, ...manifests.map((m) => m.events ?? {})),
  };
}
