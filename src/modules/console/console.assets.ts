import type { FastifyInstance } from 'fastify';

/** Scripts the console serves itself (no CDN): the charting library and the script that draws the charts. */
export async function consoleAssets(_app: FastifyInstance): Promise<void> {}
