import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** A script the console serves itself: its bytes, and a version from them that its address carries. */
interface Asset {
  body: Buffer;
  version: string;
}

function asset(file: string): Asset {
  const body = fs.readFileSync(file);
  return { body, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}

/** Chart.js's minified bundle (UMD: it sets `window.Chart`), from the package the server depends on. */
function chartJs(): Asset {
  const entry = createRequire(import.meta.url).resolve('chart.js');
  return asset(path.join(path.dirname(entry), 'chart.umd.min.js'));
}

/**
 * Our own script, beside this file when run from the source; the built server (dist/) reads it from the source
 * tree it was built from, since the build compiles TypeScript only.
 */
function ourScript(name: string): Asset {
  const beside = fileURLToPath(new URL(`./assets/${name}`, import.meta.url));
  const inSource = fileURLToPath(new URL(`../../../src/modules/console/assets/${name}`, import.meta.url));
  return asset(fs.existsSync(beside) ? beside : inSource);
}

let loaded: Record<string, Asset> | undefined;

/** The scripts by the name they are served under, read once. */
function assets(): Record<string, Asset> {
  loaded ??= {
    'chart.umd.min.js': chartJs(),
    'overview-charts.js': ourScript('overview-charts.js'),
  };
  return loaded;
}

export type AssetName = 'chart.umd.min.js' | 'overview-charts.js';

/**
 * The address of a script: `/console/assets/<name>?v=<its hash>`. The version changes whenever the file does, so
 * browsers may keep each version for a year.
 */
export function assetUrl(name: AssetName): string {
  return `/console/assets/${name}?v=${(assets()[name] as Asset).version}`;
}

const ASSET_HEADERS = {
  'content-type': 'text/javascript; charset=utf-8',
  'cache-control': 'public, max-age=31536000, immutable',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
} as const;

/** Scripts the console serves itself (no CDN): the charting library and the script that draws the charts. */
export async function consoleAssets(app: FastifyInstance): Promise<void> {
  for (const [name, { body }] of Object.entries(assets())) {
    app.get(`/assets/${name}`, { schema: { hide: true } }, async (_request, reply) =>
      reply.headers(ASSET_HEADERS).send(body),
    );
  }
}
