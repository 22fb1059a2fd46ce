import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { IdParams, ListOf, ok } from '../../http/envelope.js';
import { pdfResponses, responses } from '../../http/responses.js';
import {
  Payment,
  PaymentApply,
  PaymentCreate,
  PaymentListQuery,
  PaymentReverse,
} from './payments.schemas.js';
import * as service from './payments.service.js';
import { receiptOfPayment } from './receipts.service.js';

const tags = ['Payments'];

export const paymentsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/payments',
    {
      schema: {
        operationId: 'recordPayment',
        'x-errors': ['not_found', 'invalid_state', 'amount_exceeds_balance'],
        tags,
        summary: 'Record a payment',
        description:
          'Applies the payment to the plan: its balance drops by the amount, exactly. A plan that reaches 0 is completed.',
        body: PaymentCreate,
        response: responses(201, Payment),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(request, await service.recordPayment(ctx, requireAuth(request), request.body));
    },
  );

  app.get(
    '/payments',
    {
      schema: {
        operationId: 'listPayments',
        tags,
        summary: 'List payments',
        description:
          'Newest first. Filters combine: trackId, customerId, method, status (recorded, reversed, or split: an unapplied payment replaced by its parts), unapplied, and from/to on paidAt. An unknown status is a validation_error naming status.',
        querystring: PaymentListQuery,
        response: responses(200, ListOf(Payment)),
      },
    },
    async (request) => ok(request, await service.listPayments(ctx, requireAuth(request), request.query)),
  );

  app.get(
    '/payments/:id',
    {
      schema: {
        operationId: 'getPayment',
        tags,
        summary: 'Get a payment',
        params: IdParams,
        response: responses(200, Payment),
      },
    },
    async (request) => ok(request, await service.getPayment(ctx, requireAuth(request), request.params.id)),
  );

  app.get(
    '/payments/:id/receipt',
    {
      schema: {
        operationId: 'getPaymentReceipt',
        'x-errors': ['not_found'],
        tags,
        summary: "A payment's receipt (PDF)",
        description:
          "The receipt as a PDF (application/pdf, Content-Disposition attachment; filename=\"receipt-R-000123.pdf\"): the business's name, contacts and colour, the receipt's number, the payment (amount, date, method, reference, plan), the plan's balance after it, whether the receipt still stands (a reversed or refunded payment's says so), and its public page and verification code. A part split from a credit has no receipt of its own: not_found.",
        params: IdParams,
        response: pdfResponses('The receipt as a PDF (A4).'),
      },
    },
    async (request, reply) => {
      const receipt = await receiptOfPayment(ctx, requireAuth(request), request.params.id);
      return reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="receipt-${receipt.number}.pdf"`)
        .header('cache-control', 'no-store')
        .send(receipt.pdf);
    },
  );

  app.post(
    '/payments/:id/reverse',
    {
      schema: {
        operationId: 'reversePayment',
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Reverse a payment',
        description:
          'Corrects a recorded payment, which is never edited: the payment becomes reversed, its amount goes back ' +
          'on the plan balance (a completed plan is active again) and a payment.reversed ledger entry is appended. ' +
          'Reversing a reversed payment is 409 invalid_state.',
        params: IdParams,
        body: PaymentReverse,
        response: responses(200, Payment),
      },
    },
    async (request) =>
      ok(request, await service.reversePayment(ctx, requireAuth(request), request.params.id, request.body)),
  );

  app.post(
    '/payments/:id/apply',
    {
      schema: {
        operationId: 'applyPayment',
        'x-errors': ['not_found', 'invalid_state'],
        tags,
        summary: 'Apply an unapplied payment to a plan',
        description:
          "Money a provider reports is always recorded; what no plan took (an overpayment's excess, money for a " +
          'completed or archived plan, in another currency, or with a reference that matches nothing) is an ' +
          "unapplied payment: the customer's credit (`balances[].credit` on the customer; `GET /payments?unapplied=true`). " +
          "This applies it to an active plan of the same customer and currency: the plan's balance drops and its " +
          'obligations are paid oldest first, as by any payment (ledger entries and event `payment.applied`). When ' +
          "it is more than the plan's balance, the plan takes its balance and the rest stays the customer's " +
          'credit: the payment becomes `split` into those two parts (`splitInto`), and the answer is the part on ' +
          'the plan. A payment that is not unapplied is 409 invalid_state; a plan of another customer or ' +
          'currency is 422 naming trackId. To give the money back instead, reverse it.',
        params: IdParams,
        body: PaymentApply,
        response: responses(200, Payment),
      },
    },
    async (request) =>
      ok(
        request,
        await service.applyPaymentToPlan(ctx, requireAuth(request), request.params.id, request.body),
      ),
  );
};
