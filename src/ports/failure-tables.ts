import { FAILURE_CODES, isRetryable } from './failure-codes.js';
import { PAYSTACK_FAILURES } from './paystack/failures.js';
import { STRIPE_FAILURES } from './stripe/failures.js';

const SIMULATOR =
  'the simulator: amounts ending in 13 → insufficient_funds, 14 → account_closed (15: a bank debit that settles later, 16 → authentication_required, for Paystack and Stripe simulated)';

function rows(
  table: Readonly<Record<string, { code: string; retryable: boolean }>>,
  provider: string,
): string[] {
  return Object.entries(table).map(
    ([raw, { code, retryable }]) => `| ${provider} | \`${raw}\` | ${code} | ${retryable ? 'yes' : 'no'} |`,
  );
}

/**
 * Each provider's decline and error codes and the normalised failure code they map to, as a Markdown table: the
 * same tables the adapters use, so the description cannot drift from the code.
 */
export function failureCodeDescription(): string {
  return [
    `Normalised failure: ${FAILURE_CODES.join(', ')}. Retried (1, 3 and 7 days after the first failure) when the provider's answer is retryable; by default ${FAILURE_CODES.filter(isRetryable).join(', ')} are. authentication_required needs the payer: it is not retried, and a reminder with a link to pay goes to the customer instead. Timeouts, 5xx and 429 answers are provider_unavailable (retried); a charge whose outcome is unknown is asked about, never made again. The raw code is in provider_failure_code. In test mode, ${SIMULATOR}.`,
    '',
    '| Provider | Provider code (gateway_response, decline_code or code) | failure_code | Retried |',
    '| --- | --- | --- | --- |',
    ...rows(PAYSTACK_FAILURES, 'Paystack'),
    ...rows(STRIPE_FAILURES, 'Stripe'),
    '| Paystack, Stripe | any other | declined | no |',
  ].join('\n');
}
