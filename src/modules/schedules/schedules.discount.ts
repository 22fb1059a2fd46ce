import { fieldError } from '../../lib/app-error.js';
import type { EarlySettlementDiscount } from './schedules.table.js';

/** The policy as stored (JSON or null), after the checks the schema cannot make. */
export function storedDiscount(policy: EarlySettlementDiscount | null): string | null {
  if (policy === null) return null;
  const { type, value } = policy;
  if (type === 'fixed' && !Number.isSafeInteger(value)) {
    throw fieldError({ early_settlement_discount: 'a fixed value is an integer of minor units, at least 1' });
  }
  if (type === 'percent' && (value > 100 || Math.abs(value * 100 - Math.round(value * 100)) > 1e-9)) {
    throw fieldError({
      early_settlement_discount: 'a percent value is above 0, at most 100, with at most 2 decimals',
    });
  }
  return JSON.stringify({ type, value });
}

export function discountOf(stored: string | null): EarlySettlementDiscount | null {
  return stored === null ? null : (JSON.parse(stored) as EarlySettlementDiscount);
}
