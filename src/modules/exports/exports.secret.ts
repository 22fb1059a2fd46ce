import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/schema.js';

const ROW_ID = 'download_links';

/** One lookup per database handle: the key never changes once made. */
const kept = new WeakMap<Db, Promise<string>>();

/** The key kept in the database: made by whichever node needs it first; every other node reads the same. */
async function storedSecret(ctx: AppContext): Promise<string> {
  // One statement each, outside any unit of work: this is no part of a request's change.
  await ctx.db
    .insertInto('export_signing')
    .values({
      id: ROW_ID,
      secret: randomBytes(32).toString('hex'),
      created_at: ctx.clock.now().toISOString(),
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const row = await ctx.db
    .selectFrom('export_signing')
    .select('secret')
    .where('id', '=', ROW_ID)
    .executeTakeFirstOrThrow();
  return row.secret;
}

/**
 * The key that signs download links: `EXPORT_SIGNING_SECRET` when set, else a random one made once and kept in
 * the database, so links survive restarts and work on every node that shares it.
 */
export function signingSecret(ctx: AppContext): Promise<string> {
  if (ctx.config.exportSigningSecret) return Promise.resolve(ctx.config.exportSigningSecret);
  let secret = kept.get(ctx.db);
  if (!secret) {
    secret = storedSecret(ctx);
    kept.set(ctx.db, secret);
    secret.catch(() => kept.delete(ctx.db));
  }
  return secret;
}

/** What signs the download links an export shows. */
export interface LinkKey {
  publicUrl: string;
  secret: string;
}

export async function linkKey(ctx: AppContext): Promise<LinkKey> {
  return { publicUrl: ctx.config.publicUrl, secret: await signingSecret(ctx) };
}
