import type { Mode } from '../../lib/tenant.js';

export const ROLES = ['owner', 'admin', 'collector', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** A person who runs a business in the console, once whatever the number of workspaces. */
export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  /** `lib/passwords.ts`; null until the person sets one through their link. */
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

export interface MembershipsTable {
  user_id: string;
  workspace_id: string;
  role: Role;
  created_at: string;
}

/** A one-time link to set a password, kept by the SHA-256 of its token. */
export interface PasswordTokensTable {
  token_hash: string;
  user_id: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** A signed-in person's session, kept by the SHA-256 of the cookie's token. */
export interface SessionsTable {
  token_hash: string;
  user_id: string;
  workspace_id: string;
  mode: Mode;
  created_at: string;
  last_seen_at: string;
  ended_at: string | null;
}

export interface SignInFailuresTable {
  email: string;
  failed_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    users: UsersTable;
    memberships: MembershipsTable;
    password_tokens: PasswordTokensTable;
    sessions: SessionsTable;
    sign_in_failures: SignInFailuresTable;
  }
}
