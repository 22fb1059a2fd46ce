// The customer page module's public face.
export { CUSTOMER_PAGE_LINK, linkForMessage } from './portal.links.js';
