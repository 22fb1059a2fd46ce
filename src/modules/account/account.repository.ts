import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import type { TenantRef } from '../../lib/tenant.js';

export interface DayRange {
  from: string;
  to: string;
}

// Cast so both databases return an integer: PostgreSQL's sum(bigint) is numeric.
const requests = sql<number>`cast(sum(requests) as bigint)`.as('requests');
const errors = sql<number>`cast(sum(errors) as bigint)`.as('errors');

function usageIn(db: DbOrTrx, tenant: TenantRef, range: DayRange) {
  return db
    .selectFrom('api_usage')
    .where(inTenant(tenant))
    .where('day', '>=', range.from)
    .where('day', '<=', range.to);
}

export function usageByDay(db: DbOrTrx, tenant: TenantRef, range: DayRange) {
  return usageIn(db, tenant, range).select(['day', requests, errors]).groupBy('day').orderBy('day').execute();
}

export function usageByKey(db: DbOrTrx, tenant: TenantRef, range: DayRange) {
  return usageIn(db, tenant, range)
    .select(['key_id', requests, errors])
    .groupBy('key_id')
    .orderBy('requests', 'desc')
    .orderBy('key_id')
    .execute();
}
