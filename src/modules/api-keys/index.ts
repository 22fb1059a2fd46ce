// The api-keys module's public face.

export type { KeyWithWorkspace } from './api-keys.repository.js';
export * from './api-keys.service.js';
export { KeyCache } from './key-cache.js';
