export { type AuditChange, recordAudit } from './audit.service.js';
export { auditTrailPlugin } from './audit.trail.js';
