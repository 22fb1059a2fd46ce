import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { esc } from './console.html.js';
import { sendPage } from './console.layout.js';
import { visitIn } from './console.visit.js';

export function overviewPages(app: FastifyInstance, _ctx: AppContext) {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const visit = visitIn(request);
    return sendPage(reply, visit, {
      title: 'Overview',
      section: 'overview',
      body: `<p>Signed in as ${esc(visit.person.email)} (${esc(visit.person.role)}).</p>`,
    });
  });
}
