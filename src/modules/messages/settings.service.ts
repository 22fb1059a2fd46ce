import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Db, DbOrTrx } from '../../db/schema.js';
import { inTenant } from '../../db/scoping.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Mode, TenantRef } from '../../lib/tenant.js';
import { createAfricastalkingAdapter } from '../../ports/africastalking/adapter.js';
import { createHttpPhoneAdapter } from '../../ports/message-provider.js';
import type { PhoneAdapterFactory, PhoneMessageAdapter } from '../../ports/phone-messages.js';
import { createTwilioAdapter } from '../../ports/twilio/adapter.js';
import { MESSAGE_PROVIDERS, type MessageProviderName, type MessageSettingsTable } from './messages.table.js';

/** Each provider: the credentials it takes, how to tell them apart from a typo, and its adapter. */
const PROVIDERS: Record<
  MessageProviderName,
  { fields: Record<string, RegExp>; shown: [string, string]; factory: PhoneAdapterFactory; whatsapp: boolean }
> = {
  twilio: {
    fields: { accountSid: /^AC[0-9a-fA-F]{32}$/, authToken: /^[0-9a-zA-Z]{16,64}$/ },
    shown: ['accountSid', 'authToken'],
    factory: createTwilioAdapter,
    whatsapp: true,
  },
  africastalking: {
    fields: { username: /^[A-Za-z0-9_.-]{1,100}$/, apiKey: /^[\x21-\x7e]{8,200}$/ },
    shown: ['username', 'apiKey'],
    factory: createAfricastalkingAdapter,
    whatsapp: false,
  },
  http: {
    fields: { url: /^https?:\/\/[^\s]{1,500}$/, apiKey: /^[\x21-\x7e]{8,500}$/ },
    shown: ['url', 'apiKey'],
    factory: createHttpPhoneAdapter,
    whatsapp: true,
  },
};

export const isMessageProvider = (name: string): name is MessageProviderName =>
  (MESSAGE_PROVIDERS as readonly string[]).includes(name);

const E164 = /^\+[1-9][0-9]{6,14}$/;
/** An alphanumeric sender ID (up to 11 characters), a short code, an E.164 number, or a Twilio Messaging Service. */
const SMS_SENDER = /^(\+[1-9][0-9]{6,14}|[0-9]{3,8}|[A-Za-z0-9 ]{1,11}|MG[0-9a-fA-F]{32})$/;

export interface MessageSettingInput extends TenantRef {
  provider: MessageProviderName;
  /** The provider's credentials, as the credentials file gave them (JSON). */
  credentials: string;
  smsFrom?: string;
  whatsappFrom?: string;
}

/** What is wrong with a message setting as asked, naming the option; null when nothing is. */
export function messageSettingProblem(input: MessageSettingInput): string | null {
  const facts = PROVIDERS[input.provider];
  let parsed: unknown;
  try {
    parsed = JSON.parse(input.credentials);
  } catch {
    parsed = null;
  }
  const names = Object.keys(facts.fields);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return `--credentials-file: a JSON object with ${names.join(' and ')}`;
  }
  for (const [name, form] of Object.entries(facts.fields)) {
    const value = (parsed as Record<string, unknown>)[name];
    if (typeof value !== 'string' || !form.test(value)) {
      return `--credentials-file: ${name} is missing or not a ${input.provider} ${name}`;
    }
  }
  if (input.smsFrom !== undefined && !SMS_SENDER.test(input.smsFrom)) {
    return '--sms-from: an E.164 number, a short code, or an alphanumeric sender ID of up to 11 characters';
  }
  if (input.whatsappFrom !== undefined) {
    if (!facts.whatsapp)
      return `--whatsapp-from: ${input.provider} sends no WhatsApp messages through paytrack`;
    if (!E164.test(input.whatsappFrom)) return '--whatsapp-from: an E.164 number such as +2348031234567';
  }
  return null;
}

/** The credentials of a file, trimmed to the provider's fields (anything else in the file is not kept). */
function credentialsOf(input: MessageSettingInput): Record<string, string> {
  const parsed = JSON.parse(input.credentials) as Record<string, string>;
  return Object.fromEntries(
    Object.keys(PROVIDERS[input.provider].fields).map((name) => [name, parsed[name] as string]),
  );
}

export class MessageSettingError extends Error {}

/**
 * Sets the workspace's SMS and WhatsApp provider for a mode (one per mode: setting another replaces it), its
 * credentials sealed. A new setting gets a callback token, kept across updates.
 */
export async function setMessageProvider(
  db: Db,
  clock: Clock,
  secrets: SecretBox,
  input: MessageSettingInput,
): Promise<{ setting: MessageSettingsTable; created: boolean }> {
  const problem = messageSettingProblem(input);
  if (problem) throw new MessageSettingError(problem);
  const credentials = credentialsOf(input);
  const [account, secret] = PROVIDERS[input.provider].shown;
  const hint = `${credentials[account as string]} …${(credentials[secret as string] as string).slice(-4)}`;
  const now = clock.now().toISOString();
  return db.transaction().execute(async (trx) => {
    const existing = await findMessageSetting(trx, input);
    const changes = {
      provider: input.provider,
      credentials: secrets.seal(JSON.stringify(credentials)),
      credentials_hint: hint,
      sms_from: input.smsFrom ?? (existing?.provider === input.provider ? existing.sms_from : null),
      whatsapp_from:
        input.whatsappFrom ?? (existing?.provider === input.provider ? existing.whatsapp_from : null),
      updated_at: now,
    };
    if (existing) {
      const setting = await trx
        .updateTable('message_settings')
        .set(changes)
        .where('id', '=', existing.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { setting, created: false };
    }
    const setting: MessageSettingsTable = {
      id: newId('messageSetting', clock.now()),
      workspace_id: input.workspaceId,
      mode: input.mode,
      callback_token: randomBytes(24).toString('base64url'),
      created_at: now,
      ...changes,
    };
    await trx.insertInto('message_settings').values(setting).execute();
    return { setting, created: true };
  });
}

export function findMessageSetting(db: DbOrTrx, tenant: TenantRef) {
  return db.selectFrom('message_settings').selectAll().where(inTenant(tenant)).executeTakeFirst();
}

export function findMessageSettingById(db: DbOrTrx, id: string) {
  return db.selectFrom('message_settings').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Where the provider calls back: delivery receipts and inbound messages, with the setting's token. */
export function callbackUrlOf(
  publicUrl: string,
  setting: Pick<MessageSettingsTable, 'id' | 'callback_token'>,
) {
  return `${publicUrl}/api/v1/message-callbacks/${setting.id}?token=${setting.callback_token}`;
}

/** The adapter of a setting, its credentials opened. */
export function messageAdapterOf(ctx: AppContext, setting: MessageSettingsTable): PhoneMessageAdapter {
  const apiUrl = {
    twilio: ctx.config.twilioApiUrl,
    africastalking: ctx.config.africastalkingApiUrl,
    http: '',
  }[setting.provider];
  return PROVIDERS[setting.provider].factory(
    {
      values: JSON.parse(ctx.secrets.open(setting.credentials)) as Record<string, string>,
      apiUrl,
      smsFrom: setting.sms_from,
      whatsappFrom: setting.whatsapp_from,
      callbackUrl: callbackUrlOf(ctx.config.publicUrl, setting),
    },
    { timeoutMs: ctx.config.providerTimeoutMs },
  );
}

/** A setting as `messages list` shows it: never a secret, only its last four characters. */
export function messageSettingView(setting: MessageSettingsTable, publicUrl: string) {
  return {
    id: setting.id,
    provider: setting.provider,
    mode: setting.mode as Mode,
    credentials: setting.credentials_hint,
    smsFrom: setting.sms_from,
    whatsappFrom: setting.whatsapp_from,
    callbackUrl: callbackUrlOf(publicUrl, setting),
    updatedAt: setting.updated_at,
  };
}

export function listMessageSettings(db: DbOrTrx, workspaceId: string) {
  return db
    .selectFrom('message_settings')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('mode')
    .execute();
}

/** Seals every message provider's credentials again under the current key (a rotation). Returns how many. */
export async function resealMessageCredentials(db: Db, secrets: SecretBox, clock: Clock): Promise<number> {
  let resealed = 0;
  for (const setting of await db.selectFrom('message_settings').select(['id', 'credentials']).execute()) {
    if (secrets.isCurrent(setting.credentials)) continue;
    const done = await db
      .updateTable('message_settings')
      .set({
        credentials: secrets.seal(secrets.open(setting.credentials)),
        updated_at: clock.now().toISOString(),
      })
      .where('id', '=', setting.id)
      .where('credentials', '=', setting.credentials)
      .executeTakeFirst();
    resealed += Number(done.numUpdatedRows);
  }
  return resealed;
}

/** Opens one stored message credential: a process with the wrong PAYTRACK_SECRET_KEY says so at start. */
export async function checkSealedMessageCredentials(db: DbOrTrx, secrets: SecretBox): Promise<void> {
  const sealed = await db.selectFrom('message_settings').select('credentials').limit(1).executeTakeFirst();
  if (sealed) secrets.open(sealed.credentials);
}
