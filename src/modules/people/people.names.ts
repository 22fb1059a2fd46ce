import type { DbOrTrx } from '../../db/schema.js';

/** The e-mail (and name) of each person among `ids`, for showing who did something. */
export async function peopleNames(
  db: DbOrTrx,
  ids: readonly string[],
): Promise<Map<string, { email: string; name: string | null }>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'email', 'name'])
    .where('id', 'in', unique)
    .execute();
  return new Map(rows.map((row) => [row.id, { email: row.email, name: row.name }]));
}
