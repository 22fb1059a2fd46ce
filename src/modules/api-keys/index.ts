// The api-keys module's public face.

export * from './api-keys.service.js';
export { KeyCache } from './key-cache.js';
