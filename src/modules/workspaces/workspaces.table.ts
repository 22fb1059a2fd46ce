export interface WorkspacesTable {
  id: string;
  name: string;
  default_currency: string;
  timezone: string;
  /** ISO 3166-1 alpha-2: local phone numbers are read in it. */
  country: string | null;
  support_email: string | null;
  /** E.164. */
  support_phone: string | null;
  /** `#rrggbb`, shown on payer pages. */
  brand_color: string | null;
  /** JSON `ContactPolicy` (lib/contact-policy.ts); null: the defaults. */
  contact_policy: string | null;
  /** JSON `ReceiptSettings` (lib/receipt-settings.ts); null: the defaults (not sent). */
  receipt_settings: string | null;
  /** 1: automatic reminders carry a link to the customer's page. */
  customer_page_in_reminders: number;
  /** JSON `LateFeePolicy` (lib/late-fee.ts) copied onto schedules created without their own; null for none. */
  late_fee_default: string | null;
  subscription_plan: string;
  created_at: string;
  updated_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    workspaces: WorkspacesTable;
  }
}
