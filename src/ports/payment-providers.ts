import { randomBytes } from 'node:crypto';
import { type FailureCode, isRetryable } from './failure-codes.js';
import {
  type ParsedNotification,
  parseStandardNotification,
  type RawNotification,
} from './provider-notifications.js';

export { FAILURE_CODES, type FailureCode, isRetryable } from './failure-codes.js';

export interface MandateRequest {
  /** Our mandate id: the provider's idempotency key. */
  mandateId: string;
  payerName: string;
  /** What each collection takes, when its schedule fixes it. */
  amount: number | null;
  currency: string | null;
}

export interface ChargeRequest {
  /** Our attempt id: the provider's idempotency key and the reference its notifications carry. */
  reference: string;
  mandateId: string;
  amount: number;
  currency: string;
}

export type ChargeResult =
  | { status: 'succeeded'; providerReference: string }
  | {
      status: 'failed';
      code: FailureCode;
      message: string;
      retryable: boolean;
      /** A real provider's own decline or error code, and its reference of the failed charge. */
      providerCode?: string;
      providerReference?: string | null;
    };

/** Where the test-mode provider keeps its charges, so that one key is charged once, whatever the process. */
export interface ChargeRecord {
  /** The result kept for the request's reference, or `result` kept as the first. */
  once(provider: string, request: ChargeRequest, result: ChargeResult): Promise<ChargeResult>;
}

/** A bank account number a provider gives a schedule: transfers to it are the schedule's payments. */
export interface VirtualAccount {
  bank: string;
  number: string;
  name: string;
}

/** One payment provider behind one interface; live adapters and the test simulator alike. */
export interface PaymentProvider {
  readonly name: string;
  readonly simulated: boolean;
  /** Registers a consented mandate; null when this server has no adapter to register it with (charges then fail clearly). */
  createMandate(request: MandateRequest): Promise<{ providerMandateId: string } | null>;
  charge(request: ChargeRequest): Promise<ChargeResult>;
  /** A checkout page for `reference` (an obligation); null when this server cannot get one from the provider. */
  checkoutLink(request: {
    reference: string;
    amount: number;
    currency: string;
  }): Promise<{ id: string; url: string } | null>;
  /** A virtual account for `reference` (a schedule); null when this server cannot get one from the provider. */
  virtualAccount(request: { reference: string; accountName: string }): Promise<VirtualAccount | null>;
  /** A notification as this provider sends it, checked against its signature and normalised. */
  parseNotification(raw: RawNotification): ParsedNotification;
}

function failed(code: FailureCode, message: string): ChargeResult {
  return { status: 'failed', code, message, retryable: isRetryable(code) };
}

function simulatedCharge(amount: number): ChargeResult {
  if (amount % 100 === 13) return failed('insufficient_funds', 'The simulated account has too little money.');
  if (amount % 100 === 14) return failed('account_closed', 'The simulated account is closed.');
  return { status: 'succeeded', providerReference: `sim_chg_${randomBytes(8).toString('hex')}` };
}

/**
 * Test mode's provider, whatever the provider's name: charges succeed, except amounts ending in 13
 * (`insufficient_funds`, retryable) and in 14 (`account_closed`, not retryable). With a record, it honours the
 * idempotency key as a real provider does: a reference charged before answers as it did and is not charged again.
 */
export function simulatedProvider(name: string, record?: ChargeRecord, publicUrl = ''): PaymentProvider {
  return {
    name,
    simulated: true,
    async createMandate() {
      return { providerMandateId: `sim_mdt_${randomBytes(8).toString('hex')}` };
    },
    async charge(request) {
      const result = simulatedCharge(request.amount);
      return record ? record.once(name, request, result) : result;
    },
    async checkoutLink() {
      const id = `chk_${randomBytes(16).toString('base64url')}`;
      return { id, url: `${publicUrl}/checkout/${id}` };
    },
    async virtualAccount({ accountName }) {
      const digits = String(randomBytes(5).readUIntBE(0, 5) % 100_000_000).padStart(8, '0');
      return { bank: 'Test Bank (simulated)', number: `99${digits}`, name: accountName };
    },
    parseNotification: parseStandardNotification,
  };
}

/** Live mode for a provider with no adapter in this version: every call fails clearly and can be retried later. */
export function unavailableProvider(name: string): PaymentProvider {
  const message = `No live adapter for provider '${name}' is installed on this server.`;
  return {
    name,
    simulated: false,
    async createMandate() {
      return null;
    },
    async charge() {
      return failed('provider_unavailable', message);
    },
    async virtualAccount() {
      return null;
    },
    async checkoutLink() {
      return null;
    },
    parseNotification: parseStandardNotification,
  };
}
