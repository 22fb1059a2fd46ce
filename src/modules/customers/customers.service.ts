import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { fieldError, invalidState, notFound } from '../../lib/app-error.js';
import { isTimeZone } from '../../lib/calendar.js';
import { type Page, paginate } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { parseMetadata, stringifyMetadata } from '../../lib/json.js';
import { readPhone } from '../../lib/phone.js';
import type { Tenant, TenantRef } from '../../lib/tenant.js';
import { changedFrom, recordEvent } from '../../outbox/outbox.js';
import type { Channel } from '../../ports/messages.js';
import { countryOf } from '../workspaces/workspaces.settings.js';
import { balancesOf } from './customers.balances.js';
import * as repo from './customers.repository.js';
import type { Customer, CustomerCreate, CustomerListQuery, CustomerUpdate } from './customers.schemas.js';
import type { CustomersTable } from './customers.table.js';

export type { CustomersTable } from './customers.table.js';

export function toApi(row: CustomersTable, balances: Customer['balances'] = []): Customer {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    timeZone: row.time_zone,
    phone: row.phone,
    notes: row.notes,
    metadata: parseMetadata(row.metadata),
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archivedAt: row.archived_at,
    balances,
    optOuts: optOutsOf(row),
  };
}

/** The customer as the API shows it, with what it owes and holds as of now. */
async function withBalances(db: DbOrTrx, tenant: Tenant, row: CustomersTable): Promise<Customer> {
  return toApi(row, (await balancesOf(db, tenant, [row.id])).get(row.id) ?? []);
}

/** The phone as people write it, in E.164: a number without a country code is read in the workspace's country. */
async function phoneOf(db: DbOrTrx, tenant: TenantRef, phone: string): Promise<string> {
  const reading = readPhone(phone, await countryOf(db, tenant.workspaceId));
  if ('problem' in reading) throw fieldError({ phone: reading.problem });
  return reading.e164;
}

export async function createCustomer(
  ctx: AppContext,
  tenant: Tenant,
  input: CustomerCreate,
): Promise<Customer> {
  const phone = await phoneOf(ctx.db, tenant, input.phone);
  const at = tenant.clock.now();
  const now = at.toISOString();
  const row: CustomersTable = {
    id: newId('customer', at),
    workspace_id: tenant.workspaceId,
    mode: tenant.mode,
    name: input.name,
    email: input.email ?? null,
    phone,
    notes: input.notes ?? null,
    metadata: stringifyMetadata(input.metadata),
    status: 'active',
    created_at: now,
    updated_at: now,
    archived_at: null,
    opt_outs: '',
    time_zone: timeZoneOf(input.timeZone) ?? null,
  };
  const customer = toApi(row);
  return inTransaction(ctx, tenant, async (trx) => {
    await repo.insert(trx, row);
    await recordEvent(trx, tenant, 'customer.created', customer);
    return customer;
  });
}

/** The customer, or a 404 naming `field` when the id came from a request body. */
export async function getCustomerRow(db: DbOrTrx, tenant: TenantRef, id: string, field?: string) {
  const row = await repo.findById(db, tenant, id);
  if (!row) throw notFound('customer', id, field);
  return row;
}

/** The customer's row for another module that holds its id from a row of its own; throws when it is missing. */
export function customerRow(db: DbOrTrx, tenant: TenantRef, id: string) {
  return repo.findOrThrow(db, tenant, id);
}

/** The customer's row by its id alone, for a sweep that read the id from a row of the tenant's. */
export function customerRowById(db: DbOrTrx, id: string) {
  return repo.findAnyOrThrow(db, id);
}

export async function getCustomer(ctx: AppContext, tenant: Tenant, id: string): Promise<Customer> {
  return withBalances(ctx.db, tenant, await getCustomerRow(ctx.db, tenant, id));
}

/** Why a conditional change found no row: the customer is missing, or in a state the change does not leave. */
async function refusal(trx: DbOrTrx, tenant: TenantRef, id: string, action: string): Promise<never> {
  const current = await getCustomerRow(trx, tenant, id);
  throw invalidState('customer', current.status, action);
}

export async function updateCustomer(
  ctx: AppContext,
  tenant: Tenant,
  id: string,
  input: CustomerUpdate,
): Promise<Customer> {
  const phone = input.phone !== undefined ? await phoneOf(ctx.db, tenant, input.phone) : undefined;
  return inTransaction(ctx, tenant, async (trx) => {
    const before = await repo.findByIdForUpdate(trx, ctx.dialect, tenant, id);
    const row = await repo.updateIn(trx, tenant, id, 'active', {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.email !== undefined ? { email: input.email } : {}),
      ...(phone !== undefined ? { phone } : {}),
      ...(input.notes !== undefined ? { notes: input.notes } : {}),
      ...(input.timeZone !== undefined ? { time_zone: timeZoneOf(input.timeZone) } : {}),
      ...(input.metadata !== undefined ? { metadata: stringifyMetadata(input.metadata) } : {}),
      updated_at: tenant.clock.now().toISOString(),
    });
    if (!row || !before) return refusal(trx, tenant, id, 'update');
    const customer = await withBalances(trx, tenant, row);
    await recordEvent(
      trx,
      tenant,
      'customer.updated',
      customer,
      changedFrom(toApi(before, customer.balances), customer),
    );
    return customer;
  });
}

export async function archiveCustomer(ctx: AppContext, tenant: Tenant, id: string): Promise<Customer> {
  return inTransaction(ctx, tenant, async (trx) => {
    const now = tenant.clock.now().toISOString();
    const row = await repo.updateIn(trx, tenant, id, 'active', {
      status: 'archived',
      archived_at: now,
      updated_at: now,
    });
    if (!row) return refusal(trx, tenant, id, 'archive');
    const customer = await withBalances(trx, tenant, row);
    await recordEvent(trx, tenant, 'customer.archived', customer);
    return customer;
  });
}

export async function listCustomers(
  ctx: AppContext,
  tenant: Tenant,
  query: CustomerListQuery,
): Promise<Page<Customer>> {
  const country =
    query.q !== undefined || query.phone !== undefined ? await countryOf(ctx.db, tenant.workspaceId) : null;
  // A q that reads as a phone number also finds the customers with that number however it was written.
  const qReading = query.q !== undefined ? readPhone(query.q, country) : null;
  const qPhone = qReading && 'e164' in qReading ? qReading.e164 : undefined;
  let phone: string | undefined;
  if (query.phone !== undefined) {
    const reading = readPhone(query.phone, country);
    if ('problem' in reading) throw fieldError({ phone: reading.problem });
    phone = reading.e164;
  }
  const filters = { ...query, phone, qPhone };
  const page = await paginate(
    query,
    'customer',
    (limit, afterId) => repo.list(ctx.db, ctx.dialect, tenant, { ...filters, limit }, afterId),
    (row) => toApi(row),
  );
  const balances = await balancesOf(
    ctx.db,
    tenant,
    page.items.map((c) => c.id),
  );
  return { ...page, items: page.items.map((c) => ({ ...c, balances: balances.get(c.id) ?? [] })) };
}

/** The e-mail a provider is given for a payer: the customer's, or an address that reaches no one
 * (providers such as Paystack require one). */
export function payerEmailOf(customer: { id: string; email?: string | null }): string {
  return customer.email ?? `${customer.id.toLowerCase()}@payers.paytrack.invalid`;
}

/** The channels a customer asked not to be messaged on (STOP), oldest first. */
export function optOutsOf(customer: Pick<CustomersTable, 'opt_outs'>): Channel[] {
  return customer.opt_outs.split(',').filter((channel): channel is Channel => channel !== '');
}

/**
 * Opts a customer out of a channel (STOP) or back in (START), at once; conditional on the list as it was read,
 * so that two replies at once do not lose one. Returns the customer as it is now, or undefined when unknown.
 */
export async function setOptOut(
  db: DbOrTrx,
  tenant: Tenant,
  customerId: string,
  channel: Channel,
  optedOut: boolean,
): Promise<CustomersTable | undefined> {
  for (;;) {
    const customer = await repo.findById(db, tenant, customerId);
    if (!customer) return undefined;
    const current = optOutsOf(customer);
    const next = optedOut ? [...new Set([...current, channel])] : current.filter((c) => c !== channel);
    if (next.join(',') === customer.opt_outs) return customer;
    const updated = await db
      .updateTable('customers')
      .set({ opt_outs: next.join(','), updated_at: tenant.clock.now().toISOString() })
      .where('id', '=', customer.id)
      .where('opt_outs', '=', customer.opt_outs)
      .returningAll()
      .executeTakeFirst();
    if (updated) return updated;
  }
}

/** The customer of a tenant with this phone number (E.164), if any. */
export function customerByPhone(db: DbOrTrx, tenant: TenantRef, phone: string) {
  return db
    .selectFrom('customers')
    .selectAll()
    .where(inTenant(tenant))
    .where('phone', '=', phone)
    .orderBy('id')
    .executeTakeFirst();
}

/** A time zone as given, checked: an IANA name, or null; a field error naming timeZone otherwise. */
function timeZoneOf(timeZone: string | null | undefined): string | null | undefined {
  if (timeZone === undefined || timeZone === null) return timeZone;
  if (!isTimeZone(timeZone))
    throw fieldError({ timeZone: 'must be an IANA time zone such as Africa/Nairobi' });
  return timeZone;
}
