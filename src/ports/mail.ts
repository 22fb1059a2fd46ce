import nodemailer from 'nodemailer';
import type { MessageSender } from './messages.js';

export interface SmtpSenderOptions {
  /** `smtp://` or `smtps://`, with `user:password@` when the server wants a login. */
  smtpUrl: string;
  /** The From header, e.g. `paytrack <no-reply@example.com>`. */
  from: string;
  /** How long to wait for the connection, the greeting and each later answer; 10 s unless set. */
  timeoutMs?: number;
}

function describeSmtpFailure(error: unknown): string {
  const { message, response, code } = (error ?? {}) as { message?: string; response?: string; code?: string };
  const text = message || String(error);
  // nodemailer puts the server's answer in the message already; other errors carry it apart, if at all.
  const answer = response && !text.includes(response) ? `: ${response}` : '';
  const kind = code && !text.startsWith(code) ? ` (${code})` : '';
  return `SMTP delivery failed${kind}: ${text}${answer}`;
}

/** Sends e-mail through one SMTP server; a refusal, a dead server or a timeout comes back as a failed receipt. */
export function smtpSender(options: SmtpSenderOptions): MessageSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Settings in the URL's query string win over these (nodemailer merges them that way).
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return {
    async send(message) {
      if (message.channel !== 'email') {
        return {
          status: 'failed',
          provider: 'smtp',
          providerMessageId: null,
          error: `SMTP carries e-mail only, not ${message.channel}`,
        };
      }
      try {
        const info = await transport.sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject ?? '',
          text: message.text,
          ...(message.attachments?.length
            ? {
                attachments: message.attachments.map((a) => ({
                  filename: a.filename,
                  contentType: a.contentType,
                  content: a.content,
                })),
              }
            : {}),
        });
        return { status: 'sent', provider: 'smtp', providerMessageId: info.messageId ?? null, error: null };
      } catch (error) {
        return {
          status: 'failed',
          provider: 'smtp',
          providerMessageId: null,
          error: describeSmtpFailure(error),
        };
      }
    },
  };
}
