import type { DbOrTrx } from '../../db/schema.js';
import { addExact } from '../../lib/money.js';
import type { TenantRef } from '../../lib/tenant.js';
import * as repo from './reports.repository.js';

/** What of an account's overdue amount an open dispute, and an open promise to pay, covered at the report's time. */
export interface Covered {
  promised: number;
  disputed: number;
}

export const accountKey = (trackId: string | null, scheduleId: string) => trackId ?? `schedule:${scheduleId}`;

/**
 * Per overdue account (by `accountKey`), the part of its overdue amount covered at `at` by disputes and promises
 * open then. A dispute on a plan or one of its payments covers the plan's whole overdue amount, one on an
 * obligation what that obligation had overdue. A dispute comes first, as it does for holds: a promise covers at
 * most its amount of what is overdue and not disputed (of the plan, or of the obligation it names).
 */
export async function coveredByAccount(
  db: DbOrTrx,
  tenant: TenantRef,
  at: string,
  overdue: ReadonlyMap<string, number>,
  paidOf: (allocations: string) => number,
): Promise<Map<string, Covered>> {
  const covered = new Map<string, Covered>();
  const promises = await repo.promisesOpenAt(db, tenant, at);
  const disputes = await repo.disputesOpenAt(db, tenant, at);
  if (promises.length === 0 && disputes.length === 0) return covered;
  const plansDisputed = new Set(
    disputes.flatMap((d) => (d.obligation_id === null && d.track_id ? [d.track_id] : [])),
  );
  const obligationsDisputed = new Set(disputes.flatMap((d) => (d.obligation_id ? [d.obligation_id] : [])));
  const candidates = await repo.overdueCandidatesOf(
    db,
    tenant,
    at,
    [...new Set([...plansDisputed, ...promises.map((p) => p.track_id)])],
    [
      ...new Set([
        ...obligationsDisputed,
        ...promises.flatMap((p) => (p.obligation_id ? [p.obligation_id] : [])),
      ]),
    ],
  );
  const owed = new Map<string, { key: string; owed: number; disputed: boolean }>();
  for (const o of candidates) {
    const left = o.amount - paidOf(o.allocations);
    if (left <= 0) continue;
    const key = accountKey(o.track_id, o.schedule_id);
    const disputed = obligationsDisputed.has(o.id) || (o.track_id !== null && plansDisputed.has(o.track_id));
    owed.set(o.id, { key, owed: left, disputed });
  }
  const of = (key: string) => {
    const found = covered.get(key) ?? { promised: 0, disputed: 0 };
    covered.set(key, found);
    return found;
  };
  for (const o of owed.values()) if (o.disputed) of(o.key).disputed = addExact(of(o.key).disputed, o.owed);
  for (const trackId of plansDisputed)
    if (overdue.has(trackId)) of(trackId).disputed = overdue.get(trackId) ?? 0;
  for (const p of promises) {
    const total = overdue.get(p.track_id);
    if (total === undefined) continue;
    const account = of(p.track_id);
    const o = p.obligation_id ? owed.get(p.obligation_id) : undefined;
    const open = p.obligation_id === null ? total - account.disputed : o && !o.disputed ? o.owed : 0;
    account.promised = addExact(account.promised, Math.max(0, Math.min(p.amount, open)));
  }
  for (const [key, c] of covered) {
    const total = overdue.get(key) ?? 0;
    c.disputed = Math.min(c.disputed, total);
    c.promised = Math.min(c.promised, total - c.disputed);
  }
  return covered;
}
