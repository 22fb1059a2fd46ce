import { type DialectName, forUpdate } from '../../db/dialect.js';
import type { Db, DbOrTrx } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { DEFAULT_SUBSCRIPTION_PLAN } from './subscription-plans.js';
import { checkSettings } from './workspaces.settings.js';
import type { WorkspacesTable } from './workspaces.table.js';

export type { WorkspacesTable } from './workspaces.table.js';

/** A new workspace; without them it keeps USD, UTC and no country. */
export interface WorkspaceInput {
  name: string;
  currency?: string;
  timezone?: string;
  country?: string;
}

/** Problems with a new workspace's settings, by option name (`timezone`); empty when all is well. */
export function workspaceProblems(input: WorkspaceInput): Record<string, string> {
  const check = checkSettings(
    {
      name: input.name,
      ...(input.currency !== undefined ? { currency: input.currency } : {}),
      ...(input.timezone !== undefined ? { timeZone: input.timezone } : {}),
      ...(input.country !== undefined ? { country: input.country } : {}),
    },
    null,
  );
  if (!('problems' in check)) return {};
  const { timeZone, ...rest } = check.problems;
  return { ...rest, ...(timeZone !== undefined ? { timezone: timeZone } : {}) } as Record<string, string>;
}

export async function createWorkspace(db: Db, clock: Clock, input: WorkspaceInput): Promise<WorkspacesTable> {
  const at = clock.now();
  const now = at.toISOString();
  const row: WorkspacesTable = {
    id: newId('workspace', at),
    name: input.name.trim(),
    default_currency: input.currency ?? 'USD',
    timezone: input.timezone ?? 'UTC',
    country: input.country ?? null,
    support_email: null,
    late_fee_default: null,
    support_phone: null,
    brand_color: null,
    contact_policy: null,
    receipt_settings: null,
    customer_page_in_reminders: 0,
    subscription_plan: DEFAULT_SUBSCRIPTION_PLAN,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('workspaces').values(row).execute();
  return row;
}

export function findWorkspace(db: DbOrTrx, id: string) {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The workspace of a tenant already known to exist (a row that refers to it); throws when it is missing. */
export function workspaceRow(db: DbOrTrx, id: string) {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The time zone the workspace's calendar dates are read in; throws when there is no such workspace. */
export async function timeZoneOf(db: DbOrTrx, id: string): Promise<string> {
  const row = await db
    .selectFrom('workspaces')
    .select('timezone')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.timezone;
}

/**
 * The workspace, locked until the transaction ends (PostgreSQL; SQLite locks the whole database), so
 * checks against its plan's limits and the writes they allow happen one request at a time.
 */
export function lockWorkspace(trx: DbOrTrx, dialect: DialectName, id: string) {
  return forUpdate(dialect, trx.selectFrom('workspaces').selectAll().where('id', '=', id)).executeTakeFirst();
}

export function listWorkspaces(db: DbOrTrx) {
  return db.selectFrom('workspaces').selectAll().orderBy('id').execute();
}

export async function hasAnyWorkspace(db: Db): Promise<boolean> {
  const row = await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

export function workspaceToView(row: WorkspacesTable) {
  return {
    id: row.id,
    name: row.name,
    defaultCurrency: row.default_currency,
    timezone: row.timezone,
    country: row.country,
    supportEmail: row.support_email,
    supportPhone: row.support_phone,
    brandColor: row.brand_color,
    subscriptionPlan: row.subscription_plan,
    createdAt: row.created_at,
  };
}

/** What the pages a payer sees show of the business behind them. */
export interface BusinessCard {
  name: string;
  supportEmail: string | null;
  supportPhone: string | null;
  brandColor: string | null;
  /** Times on its pages are written in this zone. */
  timeZone: string;
}

export async function businessCard(db: DbOrTrx, workspaceId: string): Promise<BusinessCard> {
  const row = await db
    .selectFrom('workspaces')
    .select(['name', 'support_email', 'support_phone', 'brand_color', 'timezone'])
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return {
    name: row.name,
    supportEmail: row.support_email,
    supportPhone: row.support_phone,
    brandColor: row.brand_color,
    timeZone: row.timezone,
  };
}
