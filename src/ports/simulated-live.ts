import { randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { isRetryable } from './failure-codes.js';
import {
  type AuthorizationState,
  type LiveChargeResult,
  type LiveProviderAdapter,
  WebhookSignatureError,
} from './live-provider.js';
import type { SimulatorRecords } from './simulator-records.js';

/**
 * Test mode's Paystack and Stripe when the workspace gave no sandbox key: the same flows as the real adapters,
 * simulated on this server, so that test mode shows what live mode will do. The payer authorises on a hosted
 * page of ours (`/simulator/authorize/<reference>`) and comes back to the return page; charges follow the
 * simulator's amounts (ending in 13: insufficient_funds, 14: account_closed, 15: a bank debit that stays
 * processing and succeeds when asked about a minute later, 16: authentication_required); refunds succeed.
 */

/** How long a simulated bank debit stays processing. */
export const SIMULATED_DEBIT_MS = 60_000;

export interface AuthorizationRecord {
  provider: 'paystack' | 'stripe';
  status: 'pending' | 'active' | 'declined';
  returnUrl: string;
  cancelUrl: string;
  payerName: string;
}

interface ChargeRecord {
  result: LiveChargeResult;
  chargedAt: string;
}

export const authorizationKey = (reference: string) => `authorization:${reference}`;
const chargeKey = (provider: string, attemptId: string) => `charge:${provider}:${attemptId}`;

const simulatedId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

function chargeOf(amount: number): LiveChargeResult {
  const fail = (code: 'insufficient_funds' | 'account_closed' | 'authentication_required', message: string) =>
    ({
      status: 'failed',
      code,
      providerCode: `simulated_${code}`,
      message,
      retryable: isRetryable(code),
      providerReference: null,
    }) as const;
  switch (amount % 100) {
    case 13:
      return fail('insufficient_funds', 'The simulated account has too little money.');
    case 14:
      return fail('account_closed', 'The simulated account is closed.');
    case 15:
      return { status: 'processing', providerReference: simulatedId('sim_chg') };
    case 16:
      return fail('authentication_required', 'The simulated bank wants the payer to confirm this payment.');
    default:
      return { status: 'succeeded', providerReference: simulatedId('sim_chg') };
  }
}

export function simulatedLiveAdapter(
  name: 'paystack' | 'stripe',
  options: { publicUrl: string; records: SimulatorRecords; clock: Clock },
): LiveProviderAdapter {
  const { publicUrl, records, clock } = options;
  return {
    name,
    supports: new Set(['checkout', 'virtual_account', 'debit']),
    async startAuthorization(request) {
      const reference = `sim_auth_${request.mandateId}`;
      await records.once<AuthorizationRecord>(authorizationKey(reference), {
        provider: name,
        status: 'pending',
        returnUrl: request.returnUrl,
        cancelUrl: request.cancelUrl,
        payerName: request.payerName,
      });
      return { url: `${publicUrl}/simulator/authorize/${reference}`, providerReference: reference };
    },
    async checkAuthorization(reference): Promise<AuthorizationState> {
      const found = await records.get<AuthorizationRecord>(authorizationKey(reference));
      if (found?.state.status === 'active') {
        return {
          status: 'active',
          providerReference: `sim_mdt_${reference.slice('sim_auth_'.length)}`,
          customerReference: null,
          paymentMethod: { type: 'direct_debit', bank: 'Test Bank (simulated)', last4: '0000' },
        };
      }
      if (found?.state.status === 'declined')
        return { status: 'failed', reason: 'declined on the simulated page' };
      return { status: 'pending' };
    },
    async charge(request) {
      const kept = await records.once<ChargeRecord>(chargeKey(name, request.attemptId), {
        result: chargeOf(request.amount),
        chargedAt: clock.now().toISOString(),
      });
      return kept.state.result;
    },
    async lookupCharge(attemptId) {
      const key = chargeKey(name, attemptId);
      const found = await records.get<ChargeRecord>(key);
      if (!found) return { status: 'not_found' };
      const { result, chargedAt } = found.state;
      if (result.status !== 'processing') return result;
      if (clock.now().getTime() - Date.parse(chargedAt) < SIMULATED_DEBIT_MS) return result;
      const settled: ChargeRecord = {
        result: { status: 'succeeded', providerReference: result.providerReference },
        chargedAt,
      };
      await records.change(key, found.state, settled);
      return settled.result;
    },
    async checkout(request) {
      // The simulator's checkout page is this server's, under our own reference.
      return { id: request.reference, url: `${publicUrl}/checkout/${request.reference}` };
    },
    async lookupCheckout() {
      return { status: 'not_found' };
    },
    async virtualAccount({ accountName }) {
      const digits = String(randomBytes(5).readUIntBE(0, 5) % 100_000_000).padStart(8, '0');
      return { bank: 'Test Bank (simulated)', number: `99${digits}`, name: accountName };
    },
    async refund() {
      return { status: 'succeeded', providerReference: simulatedId('sim_rfd'), failureReason: null };
    },
    parseWebhook() {
      throw new WebhookSignatureError('The simulator sends no webhooks.');
    },
  };
}

/**
 * The payer's answer on the simulator's hosted page: authorise, decline, or cancel (which leaves it pending, as a
 * payer who closes a provider's page does). Returns where the provider sends the payer back; null for an
 * authorization the simulator never started.
 */
export async function answerSimulatedAuthorization(
  records: SimulatorRecords,
  reference: string,
  action: 'authorize' | 'decline' | 'cancel',
): Promise<string | null> {
  const key = authorizationKey(reference);
  const found = await records.get<AuthorizationRecord>(key);
  if (!found) return null;
  if (action === 'cancel') return found.state.cancelUrl;
  if (found.state.status === 'pending') {
    await records.change(key, found.state, {
      ...found.state,
      status: action === 'authorize' ? 'active' : 'declined',
    });
  }
  return found.state.returnUrl;
}
