import fs from 'node:fs';
import type { Kysely, Migration } from 'kysely';

const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);

/** The migrations that come before `name` (its number, `0029`), to bring a fresh database to the schema of then. */
export async function migrationsBefore(name: string, dialect: string): Promise<Record<string, Migration>> {
  const files = fs
    .readdirSync(MIGRATIONS)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.ts$/.test(file) && file < name)
    .sort();
  const entries = await Promise.all(
    files.map(async (file) => {
      const module = await import(new URL(file, MIGRATIONS).href);
      return [file.slice(0, -3), { up: (db: Kysely<any>) => module.up(db, dialect) }] as const;
    }),
  );
  return Object.fromEntries(entries);
}
