import { randomBytes } from 'node:crypto';
import type { AuthContext } from '../modules/api-keys/index.js';

/**
 * Calls the server makes to its own API on someone's behalf (the console acting for a signed-in person): the
 * caller registers who acts under a random name for the length of one injected request, and the API's
 * authentication reads it from this header. The name exists only in this process's memory, so no request from
 * outside can present one.
 */
export const INTERNAL_CALL_HEADER = 'x-paytrack-internal-call';

const calls = new Map<string, AuthContext>();

export async function asInternalCall<T>(
  auth: AuthContext,
  call: (headers: Record<string, string>) => Promise<T>,
): Promise<T> {
  const name = randomBytes(24).toString('base64url');
  // Each call its own object: a request's commit hooks are kept by its AuthContext (`withCommitHook`), so two
  // calls at once for one person must not share one.
  calls.set(name, { ...auth });
  try {
    return await call({ [INTERNAL_CALL_HEADER]: name });
  } finally {
    calls.delete(name);
  }
}

/** The actor an internal call was registered with; undefined for any other value. */
export function internalCallAuth(header: unknown): AuthContext | undefined {
  return typeof header === 'string' ? calls.get(header) : undefined;
}
