import fs from 'node:fs';
import path from 'node:path';
import { formatTable } from '../src/cli/io.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** Where a function lives, short: the package, or the path under the project, and the line. */
function place(url: string, line: number): string {
  if (!url) return '(native)';
  const file = url.replace(/^file:\/\//, '');
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(file);
  const shown = inPackage ? `${inPackage[1]}: ${inPackage[2]}` : path.relative(process.cwd(), file) || file;
  return `${shown}:${line + 1}`;
}

/**
 * The functions that spent the most samples themselves (self time) in the `.cpuprofile` files `node --cpu-prof`
 * wrote to `dir` (one per thread), as a table, heaviest first.
 */
export function topFunctions(dir: string, count = 25): string {
  const files = fs.readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
  const tables: string[] = [];
  for (const file of files) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { nodes: ProfileNode[] };
    const self = new Map<string, number>();
    let total = 0;
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      total += hits;
      const { functionName, url, lineNumber } = node.callFrame;
      const name = `${functionName || '(anonymous)'}  ${place(url, lineNumber)}`;
      self.set(name, (self.get(name) ?? 0) + hits);
    }
    const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
    tables.push(
      `${file}: ${total} samples\n${formatTable(
        ['self %', 'function  where'],
        rows.map(([name, hits]) => [`${((100 * hits) / Math.max(total, 1)).toFixed(1)}`, name]),
      )}`,
    );
  }
  return tables.join('\n');
}
