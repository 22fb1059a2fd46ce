import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { Envelope, ErrorEnvelope, IdParams, ok } from '../../http/envelope.js';
import { PdfBody } from '../../http/responses.js';
import { Statement, StatementQuery } from './statements.schemas.js';
import * as service from './statements.service.js';

const tags = ['Customers'];

const JsonBody = Envelope(Statement);
/** The whole answer the document shows: the statement's example in the envelope. */
const JSON_EXAMPLE = (JsonBody as { examples?: unknown[] }).examples?.[0];

const DESCRIPTION = [
  "The customer's statement of account for a period of calendar days in the workspace time zone, per currency (never summed across currencies).",
  "Period: `from` and `to` are dates (YYYY-MM-DD, both included). `to` defaults to today in the workspace time zone and may not be after it; `from` defaults to the first day of the month two months before `to`'s month (the last three calendar months: to 2026-11-27 gives from 2026-09-01). `from` after `to`, or more than 366 days before it, is a validation_error naming `from`; a `to` after today names `to`; a `currency` that is not an ISO 4217 code names `currency`. An unknown customer is 404 not_found.",
  "Per currency: openingBalance is what the customer's plans owed at the start of `from` (the sum of their ledger entries before it); `lines` are every charge, adjustment, payment, credit applied, reversal and refund on those plans in the period, in the order they happened (then as recorded), each with its date, a description in words, its signed amount (charges positive, payments negative, in minor units), the balance after it, and `ref`, the payment (pay_) or plan (trk_) it comes from; closingBalance is what the plans owed at the end of `to`, so openingBalance plus the lines' amounts is closingBalance. With `to` today, closingBalance is the sum of the balances of the customer's plans in that currency (archived plans too: archiving keeps a plan's balance).",
  "Money received on no plan (unapplied payments: an overpayment's excess, money for a closed plan or in another currency) does not change what the plans owe: it is the customer's credit, shown apart in `credit` with its own lines (money received adds, credit applied to a plan or refunded takes away) and balances; its closingBalance with `to` today is the `credit` of GET /customers/{id}. A collection for a schedule without a plan is neither.",
  'overdue (total, and aged in the buckets 1-30, 31-60, 61-90 and 91+ days past due as GET /reports/overdue ages it) and nextDue (the earliest due date of the open obligations not yet overdue, and what they ask that day; null when none) are as of now, when the statement is made (`asOf`), whatever `to` is.',
  'A currency with all figures zero and no line in the period is left out, unless asked for with `currency`. Entries recorded while the statement is made are left out of it: its figures agree with each other.',
  'PDF: `format=pdf`, or no `format` and an Accept header that prefers application/pdf to application/json, gives the same statement as a PDF (application/pdf, Content-Disposition attachment; filename="statement-<customer id>-<from>-<to>.pdf"): the business\'s name, contacts and brand colour, the customer, a summary per currency, every line with its running balance, the credit held, overdue by age and next due, with amounts in each currency\'s own form (₦1,500.00) and dates in words, every page numbered. The PDF streams as it is written, however many lines; errors before it starts come in the JSON error envelope.',
].join('\n\n');

export const statementsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/customers/:id/statement',
    {
      schema: {
        operationId: 'getCustomerStatement',
        tags,
        summary: "A customer's statement (JSON or PDF)",
        description: DESCRIPTION,
        params: IdParams,
        querystring: StatementQuery,
        response: {
          200: {
            description: 'The statement: JSON in the envelope, or the PDF.',
            content: {
              'application/json': { schema: JsonBody, example: JSON_EXAMPLE },
              'application/pdf': { schema: PdfBody('The statement as a PDF (A4), streamed.') },
            },
          },
          '4xx': ErrorEnvelope,
          '5xx': ErrorEnvelope,
        },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const { id } = request.params;
      if (!service.wantsPdf(request.query.format, request.headers.accept)) {
        return ok(request, await service.customerStatement(ctx, auth, id, request.query));
      }
      // The connection's end: a client that leaves midway stops the writer.
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      const pdf = await service.customerStatementPdf(ctx, auth, id, request.query, {
        signal: gone.signal,
        onError: (error) => request.log.error({ err: error }, 'statement PDF failed while streaming'),
      });
      return reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="${pdf.filename}"`)
        .header('cache-control', 'no-store')
        .send(pdf.stream);
    },
  );
};
