import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { LedgerEntry, LedgerListQuery } from '../ledger/ledger.schemas.js';
import { listCustomerLedger } from './customers.ledger.js';
import { Customer, CustomerCreate, CustomerListQuery, CustomerUpdate } from './customers.schemas.js';
import * as service from './customers.service.js';

const tags = ['Customers'];

export const customersRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/customers',
    {
      schema: {
        operationId: 'createCustomer',
        tags,
        summary: 'Create a customer',
        body: CustomerCreate,
        response: responses(201, Customer),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(request, await service.createCustomer(ctx, requireAuth(request), request.body));
    },
  );

  app.get(
    '/customers',
    {
      schema: {
        operationId: 'listCustomers',
        tags,
        summary: 'List customers',
        querystring: CustomerListQuery,
        response: responses(200, ListOf(Customer)),
      },
    },
    async (request) => ok(request, await service.listCustomers(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/customers/:id',
    {
      schema: {
        operationId: 'getCustomer',
        tags,
        summary: 'Get a customer',
        params: IdParams,
        response: responses(200, Customer),
      },
    },
    async (request) => ok(request, await service.getCustomer(ctx, requireAuth(request), request.params.id)),
  );

  app.patch(
    '/customers/:id',
    {
      schema: {
        operationId: 'updateCustomer',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Update a customer',
        params: IdParams,
        body: CustomerUpdate,
        response: responses(200, Customer),
      },
    },
    async (request) =>
      ok(request, await service.updateCustomer(ctx, requireAuth(request), request.params.id, request.body)),
  );

  app.delete(
    '/customers/:id',
    {
      schema: {
        operationId: 'archiveCustomer',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Archive a customer',
        params: IdParams,
        response: responses(200, Customer),
      },
    },
    async (request) =>
      ok(request, await service.archiveCustomer(ctx, requireAuth(request), request.params.id)),
  );

  app.get(
    '/customers/:id/ledger',
    {
      schema: {
        operationId: 'listCustomerLedger',
        tags,
        summary: "A customer's ledger",
        params: IdParams,
        querystring: LedgerListQuery,
        response: responses(200, ListOf(LedgerEntry)),
      },
    },
    async (request) =>
      ok(request, await listCustomerLedger(ctx, requireAuth(request), request.params.id, request.query)),
  );
};
