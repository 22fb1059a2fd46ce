import fs from 'node:fs';

/**
 * The server's own version, from its package.json (the same file from src/ and from dist/). Not the API's version:
 * the contract is 1.0.0 whatever the server's release.
 */
export const SERVER_VERSION: string = (
  JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The version of the API contract (the OpenAPI document's info.version), as the contract gives it. */
export const API_VERSION = '1.0.0';
