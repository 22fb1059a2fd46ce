// The people module's public face: who runs a business in the console, their sessions and what their role allows.

export { peopleNames } from './people.names.js';
export * from './people.service.js';
export { ROLES, type Role } from './people.table.js';
export { type Ability, can } from './roles.js';
export { authOfPerson } from './session-auth.js';
