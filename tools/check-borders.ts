/**
 * The module borders, checked (run by `npm run lint`):
 * - no import circles in `src/`, type-only imports included (found by dpdm);
 * - a module's `.repository` and `.table` files are imported only inside its folder; the money layer
 *   (`src/money/`) is the one exception, for the modules whose rows it moves;
 * - a table is written (insert, update, delete, in Kysely or in raw SQL) only by the folder that declares it,
 *   and the money layer writes the money tables.
 *
 * Usage: tsx tools/check-borders.ts [root]   (root defaults to the working directory; it holds `src/`)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { parseCircular, parseDependencyTree } from 'dpdm';

/** The modules whose repositories and tables the money layer may use, and whose tables it may write. */
export const MONEY_MODULES = ['tracks', 'payments', 'schedules', 'ledger'] as const;
const MONEY_FOLDER = 'src/money/';

export interface Violation {
  file: string;
  line: number;
  rule: 'private-import' | 'foreign-write';
  message: string;
}

/** `src/modules/tracks/tracks.service.ts` -> `src/modules/tracks/`; any other file -> its own folder. */
export function ownerOf(file: string): string {
  const module = /^src\/modules\/[^/]+\//.exec(file);
  return module ? module[0] : `${posix.dirname(file)}/`;
}

function moduleNameOf(folder: string): string | undefined {
  return /^src\/modules\/([^/]+)\/$/.exec(folder)?.[1];
}

function mayUseMoneyRows(file: string, owner: string): boolean {
  const name = moduleNameOf(owner);
  return (
    file.startsWith(MONEY_FOLDER) && name !== undefined && (MONEY_MODULES as readonly string[]).includes(name)
  );
}

function lineOf(source: string, index: number): number {
  return source.slice(0, index).split('\n').length;
}

/** Imports of another module's `.repository` or `.table`. */
export function privateImports(file: string, source: string): Violation[] {
  const found: Violation[] = [];
  // Static imports, re-exports and dynamic imports all name their file as `from '…'`, `import '…'` or `import('…')`.
  for (const imported of source.matchAll(/\b(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
    const specifier = imported[1]!;
    if (!/\.(repository|table)\.(js|ts)$/.test(specifier)) continue;
    const target = posix.normalize(posix.join(posix.dirname(file), specifier));
    const owner = ownerOf(target);
    if (!owner.startsWith('src/modules/') || file.startsWith(owner) || mayUseMoneyRows(file, owner)) continue;
    found.push({
      file,
      line: lineOf(source, imported.index),
      rule: 'private-import',
      message: `imports ${target}, private to ${owner}; use that module's public face (its index.ts)`,
    });
  }
  return found;
}

/** Table name -> the folder that declares it, read from the table files' `interface Database` merges. */
export function tableOwners(files: ReadonlyMap<string, string>): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [file, source] of files) {
    if (!file.endsWith('.table.ts')) continue;
    const merge = /interface Database\s*\{([^}]*)\}/.exec(source);
    if (!merge?.[1]) continue;
    for (const entry of merge[1].matchAll(/^\s*(\w+)\s*:/gm)) owners.set(entry[1]!, ownerOf(file));
  }
  return owners;
}

const KYSELY_WRITE = /\b(insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(\s*'(\w+)'/g;
const SQL_WRITE = /\b(INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)"?/gi;

/** Writes to a table that another folder declares. */
export function foreignWrites(
  file: string,
  source: string,
  owners: ReadonlyMap<string, string>,
): Violation[] {
  const found: Violation[] = [];
  const check = (table: string, index: number, how: string) => {
    const owner = owners.get(table);
    if (!owner || file.startsWith(owner) || mayUseMoneyRows(file, owner)) return;
    found.push({
      file,
      line: lineOf(source, index),
      rule: 'foreign-write',
      message: `${how} ${table}, a table of ${owner}; call that module's public face instead`,
    });
  };
  for (const match of source.matchAll(KYSELY_WRITE)) check(match[2]!, match.index, match[1]!);
  // Raw SQL lives in tagged templates (sql`...`); only their text is searched, so prose never matches.
  for (const template of source.matchAll(/\bsql(?:<[^>`]*>)?`([^`]*)`/g)) {
    for (const match of template[1]!.matchAll(SQL_WRITE)) {
      check(match[2]!, template.index + match.index, match[1]!.replace(/\s+/g, ' ').toLowerCase());
    }
  }
  return found;
}

export function checkBorders(files: ReadonlyMap<string, string>): Violation[] {
  const owners = tableOwners(files);
  const violations: Violation[] = [];
  for (const [file, source] of files) {
    if (file.startsWith('src/db/migrations/')) continue;
    violations.push(...privateImports(file, source), ...foreignWrites(file, source, owners));
  }
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

export function sourcesUnder(root: string, folder: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.set(path, readFileSync(join(root, path), 'utf8'));
    }
  };
  walk(folder);
  return files;
}

/** Import circles among the files under `root/src`, each as the list of its files (relative to `root`). */
export async function importCircles(root: string): Promise<string[][]> {
  // The tsconfig resolves `./x.js` to `./x.ts` as the compiler does (nodenext).
  const tree = await parseDependencyTree('src/**/*.ts', {
    context: root,
    cwd: root,
    tsconfig: join(root, 'tsconfig.json'),
    transform: false,
  });
  return parseCircular(tree);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const root = resolve(process.argv[2] ?? '.');
  const circles = await importCircles(root);
  for (const circle of circles) console.error(`import circle: ${[...circle, circle[0]].join(' -> ')}`);
  const violations = checkBorders(sourcesUnder(root, 'src'));
  for (const v of violations) console.error(`${v.file}:${v.line}  ${v.rule}  ${v.message}`);
  if (circles.length > 0 || violations.length > 0) {
    console.error(`\n${circles.length} import circle(s), ${violations.length} module border violation(s)`);
    process.exit(1);
  }
  console.log("module borders: no import circles, no private imports, no writes to another module's tables");
}
