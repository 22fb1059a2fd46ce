import type { Config } from '../config.js';
import { smtpSender } from './mail.js';
import { httpMessageSender } from './message-provider.js';
import { type Channel, type MessageSender, unconfiguredSender } from './messages.js';

type TransportConfig = Pick<
  Config,
  | 'smtpUrl'
  | 'mailFrom'
  | 'messageProviderUrl'
  | 'messageProviderApiKey'
  | 'messageProviderName'
  | 'smsFrom'
  | 'whatsappFrom'
>;

const CHANNEL_NAMES: Record<Channel, string> = { email: 'e-mail', sms: 'SMS', whatsapp: 'WhatsApp' };

function listed(names: string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Live mode: each channel goes to its configured transport; one without it fails, naming what to set. */
export function liveSender(config: TransportConfig): MessageSender {
  const missing: Record<Channel, string[]> = {
    email: config.smtpUrl ? [] : ['SMTP_URL'],
    sms: [],
    whatsapp: [],
  };
  for (const channel of ['sms', 'whatsapp'] as const) {
    if (!config.messageProviderUrl) missing[channel].push('MESSAGE_PROVIDER_URL');
    if (!config.messageProviderApiKey) missing[channel].push('MESSAGE_PROVIDER_API_KEY');
  }
  if (!config.smsFrom) missing.sms.push('SMS_FROM');
  if (!config.whatsappFrom) missing.whatsapp.push('WHATSAPP_FROM');

  const unconfigured = unconfiguredSender(
    Object.fromEntries(
      Object.entries(missing).map(([channel, names]) => [
        channel,
        `${CHANNEL_NAMES[channel as Channel]} is not configured: set ${listed(names)}`,
      ]),
    ),
  );
  const phone =
    config.messageProviderUrl && config.messageProviderApiKey
      ? httpMessageSender({
          baseUrl: config.messageProviderUrl,
          apiKey: config.messageProviderApiKey,
          smsFrom: config.smsFrom,
          whatsappFrom: config.whatsappFrom,
          name: config.messageProviderName,
        })
      : unconfigured;
  const senders: Record<Channel, MessageSender> = {
    email: config.smtpUrl ? smtpSender({ smtpUrl: config.smtpUrl, from: config.mailFrom }) : unconfigured,
    sms: missing.sms.length === 0 ? phone : unconfigured,
    whatsapp: missing.whatsapp.length === 0 ? phone : unconfigured,
  };
  return { send: (message) => senders[message.channel].send(message) };
}
