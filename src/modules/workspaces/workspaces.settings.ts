import { type DialectName, forUpdate } from '../../db/dialect.js';
import type { DbOrTrx } from '../../db/schema.js';
import { isTimeZone } from '../../lib/calendar.js';
import type { Clock } from '../../lib/clock.js';
import { type ContactPolicyChange, changeContactPolicy, contactPolicyOf } from '../../lib/contact-policy.js';
import { isEmail } from '../../lib/email.js';
import { camelPart, type LateFeeDefault, lateFeeFromCamel, readLateFee } from '../../lib/late-fee.js';
import { isCurrency } from '../../lib/money.js';
import { COUNTRY_PROBLEM, isCountry, readPhone } from '../../lib/phone.js';
import { changeReceiptSettings, type ReceiptSettings } from '../../lib/receipt-settings.js';
import type { WorkspacesTable } from './workspaces.table.js';

/**
 * What `PATCH /account` and `paytrack workspace update` change, by their API names: a setting left out stays,
 * null clears one that may be empty.
 */
export interface WorkspaceSettings {
  name?: string;
  currency?: string;
  timeZone?: string;
  country?: string;
  supportEmail?: string | null;
  supportPhone?: string | null;
  brandColor?: string | null;
  /** A change to the contact policy (what is left out stays); null restores the defaults. */
  contactPolicy?: ContactPolicyChange | null;
  /** A change to the receipt settings (what is left out stays); null restores the defaults. */
  receipts?: Partial<ReceiptSettings> | null;
  /** Whether automatic reminders carry a link to the customer's page. */
  customerPage?: { inReminders: boolean };
  /** The late fee policy copied onto schedules created without one; null for none. Replaced whole. */
  lateFeeDefault?: (Pick<LateFeeDefault, 'type' | 'value'> & Partial<LateFeeDefault>) | null;
}

export type SettingName = keyof WorkspaceSettings;
/** By setting, or by a path into one (`contactPolicy.maxPerDay`). */
export type SettingProblems = Partial<
  Record<SettingName | `contactPolicy.${string}` | `lateFeeDefault.${string}`, string>
>;

export const NAME_PROBLEM = 'must be 1 to 200 characters, not only spaces';
export const CURRENCY_PROBLEM = 'must be an ISO 4217 currency code such as NGN or USD';
export const TIME_ZONE_PROBLEM = 'must be an IANA time zone such as Africa/Lagos';
export { COUNTRY_PROBLEM };

const EMAIL_PROBLEM = 'must be an e-mail address such as help@example.com';
const BRAND_COLOR_PROBLEM = 'must be a colour written #rrggbb, such as #0a7d4f';
const BRAND_COLOR = /^#[0-9a-fA-F]{6}$/;

export function isWorkspaceName(name: string): boolean {
  return name.trim().length > 0 && name.length <= 200;
}

type SettingColumns = Partial<
  Pick<
    WorkspacesTable,
    | 'name'
    | 'default_currency'
    | 'timezone'
    | 'country'
    | 'support_email'
    | 'support_phone'
    | 'brand_color'
    | 'contact_policy'
    | 'receipt_settings'
    | 'customer_page_in_reminders'
    | 'late_fee_default'
  >
>;

export type SettingsCheck = { columns: SettingColumns } | { problems: SettingProblems };

/**
 * Every bad setting at once, or the columns to write. The support phone is read in the country the workspace
 * will have: the one the same change sets, else `currentCountry`.
 */
export function checkSettings(
  settings: WorkspaceSettings,
  currentCountry: string | null,
  currentPolicy: string | null = null,
  currentReceipts: string | null = null,
): SettingsCheck {
  const problems: SettingProblems = {};
  const columns: SettingColumns = {};
  const { name, currency, timeZone, country, supportEmail, supportPhone, brandColor } = settings;
  if (name !== undefined) {
    if (isWorkspaceName(name)) columns.name = name.trim();
    else problems.name = NAME_PROBLEM;
  }
  if (currency !== undefined) {
    if (isCurrency(currency)) columns.default_currency = currency;
    else problems.currency = CURRENCY_PROBLEM;
  }
  if (timeZone !== undefined) {
    if (isTimeZone(timeZone)) columns.timezone = timeZone;
    else problems.timeZone = TIME_ZONE_PROBLEM;
  }
  if (country !== undefined) {
    if (isCountry(country)) columns.country = country;
    else problems.country = COUNTRY_PROBLEM;
  }
  if (supportEmail !== undefined) {
    if (supportEmail === null || isEmail(supportEmail)) columns.support_email = supportEmail;
    else problems.supportEmail = EMAIL_PROBLEM;
  }
  if (supportPhone !== undefined) {
    if (supportPhone === null) columns.support_phone = null;
    else if (country !== undefined && problems.country) {
      problems.supportPhone = 'cannot be read until country is a valid country code';
    } else {
      const reading = readPhone(supportPhone, country ?? currentCountry);
      if ('e164' in reading) columns.support_phone = reading.e164;
      else problems.supportPhone = reading.problem;
    }
  }
  if (brandColor !== undefined) {
    if (brandColor === null) columns.brand_color = null;
    else if (BRAND_COLOR.test(brandColor)) columns.brand_color = brandColor.toLowerCase();
    else problems.brandColor = BRAND_COLOR_PROBLEM;
  }
  if (settings.contactPolicy === null) columns.contact_policy = null;
  else if (settings.contactPolicy !== undefined) {
    const changed = changeContactPolicy(contactPolicyOf(currentPolicy), settings.contactPolicy);
    if ('problems' in changed) Object.assign(problems, changed.problems);
    else columns.contact_policy = JSON.stringify(changed.policy);
  }
  if (settings.receipts !== undefined) {
    columns.receipt_settings = changeReceiptSettings(currentReceipts, settings.receipts);
  }
  if (settings.customerPage !== undefined) {
    columns.customer_page_in_reminders = settings.customerPage.inReminders ? 1 : 0;
  }
  if (settings.lateFeeDefault === null) columns.late_fee_default = null;
  else if (settings.lateFeeDefault !== undefined) {
    const read = readLateFee(lateFeeFromCamel(settings.lateFeeDefault));
    if ('policy' in read) columns.late_fee_default = JSON.stringify(read.policy);
    else {
      for (const [part, problem] of Object.entries(read.problems)) {
        problems[`lateFeeDefault.${camelPart(part)}`] = problem;
      }
    }
  }
  return Object.keys(problems).length > 0 ? { problems } : { columns };
}

export type SettingsUpdate =
  | { workspace: WorkspacesTable }
  | { problems: SettingProblems }
  | { missing: true };

/**
 * Changes the workspace's settings, all or none, with its row locked so the phone is read in the country it
 * will have. One workspace serves both modes, so the change is seen by test and live keys alike.
 */
export async function updateSettings(
  trx: DbOrTrx,
  dialect: DialectName,
  clock: Clock,
  workspaceId: string,
  settings: WorkspaceSettings,
): Promise<SettingsUpdate> {
  const current = await forUpdate(
    dialect,
    trx.selectFrom('workspaces').selectAll().where('id', '=', workspaceId),
  ).executeTakeFirst();
  if (!current) return { missing: true };
  const check = checkSettings(settings, current.country, current.contact_policy, current.receipt_settings);
  if ('problems' in check) return check;
  const workspace = await trx
    .updateTable('workspaces')
    .set({ ...check.columns, updated_at: clock.now().toISOString() })
    .where('id', '=', workspaceId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { workspace };
}

/** The country local phone numbers of the workspace are read in; null when it has none. */
export async function countryOf(db: DbOrTrx, workspaceId: string): Promise<string | null> {
  const row = await db
    .selectFrom('workspaces')
    .select('country')
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  return row?.country ?? null;
}
