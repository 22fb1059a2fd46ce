/**
 * The read ceiling: Fastify with nothing else, answering GET /api/v1/tracks/:id with the body paytrack gave
 * for a plan (env BODY), serialised on every request as paytrack does. Prints its port once listening.
 */
import Fastify from 'fastify';

const body = JSON.parse(process.env.BODY ?? '{}') as unknown;
const app = Fastify({ logger: false });
app.get('/api/v1/tracks/:id', async () => body);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.stdout.write(`${process.env.PORT}\n`);
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
