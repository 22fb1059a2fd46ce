import { type DialectName, forUpdate } from '../../db/dialect.js';
import type { Db, DbOrTrx } from '../../db/schema.js';
import { isTimeZone } from '../../lib/calendar.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { isCurrency } from '../../lib/money.js';
import { DEFAULT_PLAN } from '../account/plans.js';
import type { WorkspacesTable } from './workspaces.table.js';

export interface WorkspaceInput {
  name: string;
  currency?: string;
  timezone?: string;
}

/** Problems with a workspace's settings, by option name; empty when all is well. */
export function workspaceProblems(input: WorkspaceInput): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!input.name.trim() || input.name.length > 200) problems.name = 'must be 1 to 200 characters';
  if (input.currency !== undefined && !isCurrency(input.currency)) {
    problems.currency = 'must be an ISO 4217 currency code such as NGN or USD';
  }
  if (input.timezone !== undefined && !isTimeZone(input.timezone)) {
    problems.timezone = 'must be an IANA time zone such as Africa/Lagos';
  }
  return problems;
}

export async function createWorkspace(db: Db, clock: Clock, input: WorkspaceInput): Promise<WorkspacesTable> {
  const at = clock.now();
  const now = at.toISOString();
  const row: WorkspacesTable = {
    id: newId('workspace', at),
    name: input.name.trim(),
    default_currency: input.currency ?? 'USD',
    timezone: input.timezone ?? 'UTC',
    country: null,
    support_email: null,
    support_phone: null,
    brand_color: null,
    subscription_plan: DEFAULT_PLAN,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('workspaces').values(row).execute();
  return row;
}

export function findWorkspace(db: DbOrTrx, id: string) {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
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
