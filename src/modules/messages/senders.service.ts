import type { AppContext } from '../../context.js';
import type { Mode, TenantRef } from '../../lib/tenant.js';
import type { MessageSender } from '../../ports/messages.js';
import { findMessageSetting, messageAdapterOf } from './settings.service.js';

/**
 * How a tenant's messages go out: SMS and WhatsApp through the workspace's provider for the mode when it set one
 * (`paytrack messages set`), e-mail and anything else as before (the simulator in test mode; SMTP and the HTTP
 * message provider of the environment in live mode).
 */
export async function messageSenderFor(
  ctx: AppContext,
  tenant: TenantRef & { mode: Mode },
): Promise<MessageSender> {
  const fallback = ctx.ports.messages(tenant.mode);
  const setting = await findMessageSetting(ctx.db, tenant);
  if (!setting) return fallback;
  const adapter = messageAdapterOf(ctx, setting);
  return {
    async send(message) {
      if (message.channel === 'email' || !adapter.channels.has(message.channel))
        return fallback.send(message);
      const phoneMessage = {
        channel: message.channel,
        to: message.to,
        text: message.text,
        reference: message.reference ?? '',
      };
      if (message.retried && adapter.lookupSent) {
        const already = await adapter.lookupSent(phoneMessage);
        if (already)
          return { status: 'sent', provider: setting.provider, providerMessageId: already, error: null };
        if (already === undefined) {
          return {
            status: 'failed',
            provider: setting.provider,
            providerMessageId: null,
            error: `${setting.provider} could not say whether it has the message already; it is asked again before any new send`,
          };
        }
      }
      const result = await adapter.send(phoneMessage);
      return result.status === 'sent'
        ? {
            status: 'sent',
            provider: setting.provider,
            providerMessageId: result.providerMessageId,
            error: null,
          }
        : {
            status: 'failed',
            provider: setting.provider,
            providerMessageId: null,
            error: `${setting.provider} refused it (${result.providerCode}): ${result.message}`.slice(0, 500),
          };
    },
  };
}
