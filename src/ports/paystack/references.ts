/**
 * Paystack takes only `-`, `.`, `=` and alphanumerics in a transaction reference; our ids carry `_` (`att_01J…`)
 * and checkout references are base64url (`-` and `_`). `.` appears in neither, so `_` ↔ `.` is exact both ways.
 */
export function toPaystackReference(ours: string): string {
  return ours.replaceAll('_', '.');
}

export function fromPaystackReference(theirs: string): string {
  return theirs.replaceAll('.', '_');
}

/**
 * Paystack counts NGN, GHS, ZAR, KES and USD in their subunits (kobo, pesewas, cents), two digits each: the same
 * integers as our minor units, so amounts pass through unchanged. These are the currencies its API lists.
 */
export const PAYSTACK_CURRENCIES: ReadonlySet<string> = new Set(['NGN', 'GHS', 'ZAR', 'KES', 'USD']);
