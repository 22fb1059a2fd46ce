import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { paymentsRoutes } from './payments.routes.js';
import { PaymentEvent } from './payments.schemas.js';
import { receiptPages, unknownReceipt } from './receipts.plugin.js';

const events = {
  'payment.recorded': PaymentEvent,
  'payment.reversed': PaymentEvent,
  'payment.unapplied': PaymentEvent,
  'payment.applied': PaymentEvent,
  'payment.refund_pending': PaymentEvent,
  'payment.refunded': PaymentEvent,
  'payment.refund_failed': PaymentEvent,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

export const paymentsModule: ModuleManifest = {
  name: 'payments',
  routes: paymentsRoutes,
  events,
  pages: [{ prefix: '/r', plugin: receiptPages, badUrl: unknownReceipt }],
};
