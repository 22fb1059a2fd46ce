import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { listMessageSettings, messageSettingView } from '../messages/settings.service.js';
import {
  listSettings,
  providerDisplayName,
  type SettingView,
  settingView,
} from '../providers/providers.service.js';
import { esc, when } from './console.html.js';
import { type Visit, visitIn } from './console.visit.js';
import { sendSettings } from './settings.common.js';

const RAIL_NAMES: Record<string, string> = {
  checkout: 'checkout pages',
  virtual_account: 'virtual accounts',
  debit: 'direct debit',
};

const yes = (value: boolean) => (value ? 'yes' : 'no');
const modeName = (mode: string) => (mode === 'live' ? 'Live' : 'Test');

/** A callback URL with its token cut to the last four characters: the URL says where, never the secret. */
function withoutToken(url: string): string {
  const parsed = new URL(url);
  const token = parsed.searchParams.get('token');
  return token ? `${parsed.origin}${parsed.pathname}?token=…${token.slice(-4)}` : url;
}

function paymentCard(visit: Visit, view: SettingView): string {
  const rails = view.rails.map((rail) => RAIL_NAMES[rail] ?? rail).join(', ');
  return `<div class="card settings-card"><h3>${esc(providerDisplayName(view.provider))} · ${esc(modeName(view.mode))}</h3><dl class="facts">
<dt>Serves</dt><dd>${rails ? esc(rails) : '<span class="note">no rails</span>'}</dd>
<dt>Live debits approved</dt><dd>${yes(view.approved)}</dd>
<dt>Real provider</dt><dd>${view.liveAdapter ? 'yes: calls the provider with its key' : view.mode === 'test' ? 'no: the built-in simulator' : 'no: live calls fail until a key is set'}</dd>
<dt>Key</dt><dd>${view.keyLast4 ? `ends in ${esc(view.keyLast4)}` : '<span class="note">none</span>'}</dd>
<dt>Webhook secret</dt><dd>${view.webhookSecretSet ? 'set' : '<span class="note">not set</span>'}</dd>
<dt>Notifications go to</dt><dd class="wrap">${esc(view.liveAdapter ? view.webhookUrl : view.notificationUrl)}</dd>
<dt>Changed</dt><dd>${when(visit, view.updatedAt)}</dd>
</dl></div>`;
}

export function providersSettings(app: FastifyInstance, ctx: AppContext) {
  app.get('/providers', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    const [payments, messages] = await Promise.all([
      listSettings(ctx.db, visit.workspace.id),
      listMessageSettings(ctx.db, visit.workspace.id),
    ]);
    const paymentCards =
      payments.length === 0
        ? '<p class="note">No payment provider is set: test mode uses the built-in simulator for every provider name; live collections need one.</p>'
        : `<div class="grid">${payments.map((s) => paymentCard(visit, settingView(s, ctx.config.publicUrl))).join('')}</div>`;
    const messageCards =
      messages.length === 0
        ? '<p class="note">No SMS or WhatsApp provider is set for this workspace.</p>'
        : `<div class="grid">${messages
            .map((s) => {
              const view = messageSettingView(s, ctx.config.publicUrl);
              return `<div class="card settings-card"><h3>${esc(view.provider)} · ${esc(modeName(view.mode))}</h3><dl class="facts">
<dt>Credentials</dt><dd>${esc(view.credentials)}</dd>
<dt>SMS from</dt><dd>${view.smsFrom ? esc(view.smsFrom) : '<span class="note">none</span>'}</dd>
<dt>WhatsApp from</dt><dd>${view.whatsappFrom ? esc(view.whatsappFrom) : '<span class="note">none</span>'}</dd>
<dt>Callbacks go to</dt><dd class="wrap">${esc(withoutToken(view.callbackUrl))}</dd>
<dt>Changed</dt><dd>${when(visit, view.updatedAt)}</dd>
</dl></div>`;
            })
            .join('')}</div>`;
    const server = `<div class="card settings-card"><h3>This server</h3><dl class="facts">
<dt>E-mail</dt><dd>${ctx.config.smtpUrl ? 'an e-mail server is set (SMTP_URL): live reminders and invitations are e-mailed' : 'no e-mail server is set (SMTP_URL): live e-mail reminders fail; invitations give you a link'}</dd>
<dt>SMS and WhatsApp</dt><dd>${ctx.config.messageProviderUrl ? `the server's own provider (${esc(ctx.config.messageProviderName)}) is set` : 'no server-wide provider is set'}</dd>
</dl></div>`;
    return sendSettings(reply, visit, {
      title: 'Providers',
      page: 'providers',
      body: `<p class="note">Keys and secrets are never shown, only the last four characters of a key. They are set on the server with <code>paytrack provider set</code> and <code>paytrack messages set</code>. Test mode never reaches a provider: it uses simulators.</p>
<h2>Payment providers</h2>${paymentCards}
<h2>Message providers</h2>${messageCards}${server}`,
    });
  });
}
