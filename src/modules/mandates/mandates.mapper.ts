import type { Mandate } from './mandates.schemas.js';
import type { ConsentEvidence, MandatesTable } from './mandates.table.js';

export function toApi(row: MandatesTable, consentUrl: string | null = null): Mandate {
  return {
    id: row.id,
    payer_type: row.payer_type,
    payer_id: row.payer_id,
    provider: row.provider,
    schedule_id: row.schedule_id,
    status: row.status,
    consent_url: consentUrl,
    consent_expires_at: row.consent_expires_at,
    consented_at: row.consented_at,
    consent: row.consent === null ? null : (JSON.parse(row.consent) as ConsentEvidence),
    activated_at: row.activated_at,
    revoked_at: row.revoked_at,
    revocation_reason: row.revocation_reason,
    replaced_at: row.replaced_at,
    replaced_by: row.replaced_by,
    failure_reason: row.failure_reason,
    provider_reference: row.provider_reference ?? row.provider_mandate_id,
    payment_method:
      row.payment_method_type === null
        ? null
        : { type: row.payment_method_type, bank: row.payment_method_bank, last4: row.payment_method_last4 },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
