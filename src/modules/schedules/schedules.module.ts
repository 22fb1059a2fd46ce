import { Type } from 'typebox';
import type { EventPayloads } from '../../outbox/catalog.js';
import type { ModuleManifest } from '../manifest.js';
import { lateFeesSweep } from './late-fees.sweeps.js';
import { schedulesRoutes } from './schedules.routes.js';
import { Obligation, Schedule } from './schedules.schemas.js';
import { overdueSweep, topUpSweep } from './schedules.sweeps.js';

const ObligationEvent = Type.Omit(Obligation, ['allocations'], {
  title: 'ObligationEvent',
  description: 'An obligation as its events carry it (without its allocations).',
});

const events = {
  'schedule.created': Schedule,
  'schedule.updated': Schedule,
  'schedule.cancelled': Schedule,
  'schedule.completed': Schedule,
  'obligation.overdue': ObligationEvent,
  'obligation.paid': ObligationEvent,
  'fee.charged': ObligationEvent,
  'fee.waived': ObligationEvent,
};

declare module '../../outbox/catalog.js' {
  interface EventCatalog extends EventPayloads<typeof events> {}
}

export const schedulesModule: ModuleManifest = {
  name: 'schedules',
  routes: schedulesRoutes,
  events,
  sweeps: [topUpSweep, overdueSweep, lateFeesSweep],
};
