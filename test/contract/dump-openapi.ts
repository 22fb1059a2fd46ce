/**
 * Writes the OpenAPI document the service serves at /api/v1/openapi.json to a file, for the linter and the
 * typed client: `tsx test/contract/dump-openapi.ts <file>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildTestApp } from '../helpers/app.js';

const target = process.argv[2];
if (!target) {
  console.error('usage: tsx test/contract/dump-openapi.ts <file>');
  process.exit(2);
}
const t = await buildTestApp({ env: { PUBLIC_URL: 'https://paytrack.local' } });
try {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  if (response.statusCode !== 200) throw new Error(`openapi.json answered ${response.statusCode}`);
  fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
  fs.writeFileSync(target, `${JSON.stringify(JSON.parse(response.body), null, 2)}\n`);
  console.log(`wrote ${target}`);
} finally {
  await t.close();
}
