import type { Trx } from '../db/schema.js';
import { type AppError, fieldError } from '../lib/app-error.js';
import type { Tenant } from '../lib/tenant.js';
import { referenceKey } from '../lib/text.js';
import * as payments from '../modules/payments/payments.repository.js';

export const duplicateReference = () =>
  fieldError({
    reference:
      'is already used by another payment in this workspace (references are compared ignoring case, spaces at the ends and invisible characters)',
  });

/** A reference given with a payment, in the form references are compared in; refused when empty or taken. */
export async function checkReference(
  trx: Trx,
  tenant: Tenant,
  reference: string | null,
): Promise<AppError | null> {
  if (reference === null) return null;
  const key = referenceKey(reference);
  if (key === '') return fieldError({ reference: 'must contain visible characters' });
  if (await payments.findByReferenceKey(trx, tenant, key)) return duplicateReference();
  return null;
}
