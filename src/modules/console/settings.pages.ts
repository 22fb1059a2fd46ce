import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { esc } from './console.html.js';
import { sendPage } from './console.layout.js';
import { visitIn } from './console.visit.js';
import { SETTINGS_PAGES, sendSettings, settingsPath } from './settings.common.js';
import { exportsSettings } from './settings.exports.js';
import { keysSettings } from './settings.keys.js';
import { peopleSettings } from './settings.people.js';
import { providersSettings } from './settings.providers.js';
import { sessionsSettings } from './settings.sessions.js';
import { testClockSettings } from './settings.test-clock.js';
import { webhooksSettings } from './settings.webhooks.js';
import { workspaceSettings } from './settings.workspace.js';

/**
 * The settings, under /console/settings: the workspace, its people and their sessions, API keys, webhooks,
 * providers, exports and the test clock. Owners and admins change them, viewers look (no forms, never a
 * secret); collectors do not see them at all.
 */
export function settingsPages(app: FastifyInstance, ctx: AppContext) {
  app.register(
    async (settings) => {
      settings.addHook('preHandler', async (request, reply) => {
        const visit = request.consoleVisit;
        if (visit && !visit.can('see_settings'))
          return sendPage(
            reply,
            visit,
            {
              title: 'Settings',
              section: 'settings',
              body: '<div class="problem" role="alert"><strong>A collector does not see keys, webhooks or settings; ask an owner or admin.</strong></div><p><a href="/console">Back to the overview</a></p>',
            },
            403,
          );
      });

      settings.get('/', { schema: { hide: true } }, async (request, reply) => {
        const visit = visitIn(request);
        const cards = SETTINGS_PAGES.map(
          (p) =>
            `<div class="card settings-card"><h2><a href="${settingsPath(p.page)}">${esc(p.label)}</a></h2><p>${esc(p.about)}</p></div>`,
        ).join('\n');
        const looking = visit.can('change_settings')
          ? ''
          : '<p class="note">You can look at the settings; an owner or admin changes them.</p>';
        return sendSettings(reply, visit, {
          title: 'Settings',
          page: 'index',
          body: `${looking}<div class="grid">${cards}</div>`,
        });
      });

      workspaceSettings(settings, ctx);
      peopleSettings(settings, ctx);
      sessionsSettings(settings, ctx);
      keysSettings(settings, ctx);
      webhooksSettings(settings, ctx);
      providersSettings(settings, ctx);
      exportsSettings(settings, ctx);
      testClockSettings(settings, ctx);
    },
    { prefix: '/settings' },
  );
}
