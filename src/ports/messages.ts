import { randomBytes } from 'node:crypto';

export type Channel = 'email' | 'sms' | 'whatsapp';

export interface OutgoingMessage {
  channel: Channel;
  /** An e-mail address, or an E.164 phone number for SMS and WhatsApp. */
  to: string;
  subject?: string;
  text: string;
  /** Ours (the reminder's id), for providers that keep a client reference. */
  reference?: string;
  /** An earlier try got no answer: the provider is asked first whether it has the message, so it is not sent twice. */
  retried?: boolean;
  /** Files an e-mail carries (a receipt's PDF); other channels carry a link instead. */
  attachments?: readonly MessageAttachment[];
}

export interface MessageAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** What became of one delivery try, as a reminder log row shows it. */
export interface DeliveryReceipt {
  status: 'sent' | 'failed' | 'simulated';
  /** Who carried it: `simulator`, `smtp`, the message provider's name, or `none`. */
  provider: string;
  providerMessageId: string | null;
  error: string | null;
}

/** Sends e-mail, SMS and WhatsApp messages on one channel set. Never throws: a failure is a receipt too. */
export interface MessageSender {
  send(message: OutgoingMessage): Promise<DeliveryReceipt>;
}

/** Test mode: nothing leaves the machine; every message is accepted and marked simulated. */
export const simulatedSender: MessageSender = {
  async send() {
    return {
      status: 'simulated',
      provider: 'simulator',
      providerMessageId: `sim_${randomBytes(8).toString('hex')}`,
      error: null,
    };
  },
};

/** Live mode with no transport configured for a channel: every try fails with a message saying what to set. */
export function unconfiguredSender(what: Partial<Record<Channel, string>>): MessageSender {
  return {
    async send(message) {
      return {
        status: 'failed',
        provider: 'none',
        providerMessageId: null,
        error: what[message.channel] ?? `no transport is configured for ${message.channel}`,
      };
    },
  };
}
