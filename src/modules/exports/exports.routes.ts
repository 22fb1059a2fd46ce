import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { requireAuth } from '../../http/auth.js';
import { ErrorEnvelope, IdParams, ok } from '../../http/envelope.js';
import { responses } from '../../http/responses.js';
import { ExportDownloadQuery, ReportExport, ReportExportCreate } from './exports.schemas.js';
import * as service from './exports.service.js';

const tags = ['Reports'];

/** The file as it streams: text in the document, a stream in the handler. */
const FileBody = Type.Unsafe<Readable>({ type: 'string', description: 'The file, streamed.' });

/** A json export: one array of the rows, streamed. */
const JsonFileBody = Type.Unsafe<Readable>({
  type: 'array',
  items: { type: 'object', additionalProperties: true },
  description: 'The rows as one JSON array (format json), streamed.',
});

/** A json export of payments, as the document shows it. */
const JSON_FILE_EXAMPLE = [
  {
    id: 'pay_01JD7ZQ4N6X3E2W9V8T5R4K2M1',
    trackId: 'trk_01JD7ZM2C8K4P6R8T0V2X4Z6B8',
    planTitle: 'Samsung fridge, 6 months',
    customerId: 'cus_01JD7ZK9V3B5N7Q9S1U3W5Y7A9',
    customerName: 'Adaeze Okafor',
    amount: 150000,
    amountDecimal: '1500.00',
    currency: 'NGN',
    method: 'bank_transfer',
    status: 'recorded',
    paidAt: '2027-01-14T09:30:00.000Z',
    reference: 'GTB-0091',
    source: 'api',
    createdAt: '2027-01-14T09:31:02.000Z',
    reversedAt: null,
  },
];

export const exportsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/reports/export',
    {
      schema: {
        operationId: 'createReportExport',
        tags,
        summary: 'Export a report to a file',
        description:
          'Queues an export of a report, or of every payment (by paidAt) or ledger entry (by occurredAt) in [from, to), as csv (a header row, then one row per record), json (one JSON document: an array of row objects) or jsonl (JSON lines: one object per line). Money is integers of minor units beside a currency column. Payment rows are id, trackId, planTitle, customerId, customerName, amount, amountDecimal, currency, method, status, paidAt, reference, source, createdAt, reversedAt; ledger rows are id, type, trackId, planTitle, customerId, customerName, amount, amountDecimal, balanceAfter, balanceAfterDecimal, currency, occurredAt. planTitle and customerName are the plan\'s title and the customer\'s name as they are when the file is written (empty in csv, null in json, when the row has none). amountDecimal and balanceAfterDecimal are the same amounts in major units as decimal strings with the currency\'s exponent (150000 NGN is "1500.00", 1500 JPY "1500", a negative amount keeps its sign), computed exactly from the integers. Instants are ISO 8601 in UTC; in csv, text starting with =, +, -, @, tab or carriage return is written with a leading \' so spreadsheets do not run it. The worker streams the file in batches (progress.rows counts them); when done, downloadUrl is a signed link that works without a key for one hour, and export.completed is sent. A from after to is a validation_error naming from.',
        body: ReportExportCreate,
        response: responses(202, ReportExport),
      },
    },
    async (request, reply) => {
      reply.code(202);
      return ok(request, await service.createExport(ctx, requireAuth(request), request.body));
    },
  );

  app.get(
    '/reports/exports/:id',
    {
      schema: {
        operationId: 'getReportExport',
        tags,
        summary: 'Retrieve an export',
        description:
          'Its status and progress; when done, downloadUrl (a signed link, one hour) and expiresAt. After expiry the file is removed and downloadUrl is null.',
        params: IdParams,
        response: responses(200, ReportExport),
      },
    },
    async (request) => ok(request, await service.getExport(ctx, requireAuth(request), request.params.id)),
  );

  app.get(
    '/reports/exports/:id/download',
    {
      config: { public: true },
      schema: {
        operationId: 'downloadReportExport',
        'x-public': true,
        'x-errors': ['invalid_state'],
        tags,
        summary: 'Download an export file',
        description:
          'The downloadUrl of a done export, without an API key: the link is signed (HMAC-SHA256 of the id and expires) and works for one hour. The file streams as text/csv; charset=utf-8 (csv), application/json; charset=utf-8 (json, one array) or application/x-ndjson; charset=utf-8 (jsonl, JSON lines), with Content-Disposition: attachment; filename="<report>-<id>.<csv|json|jsonl>". A changed id, expires or signature is 403 forbidden (details.reason invalid_signature); an expired link is 403 forbidden (details.reason expired, details.expiredAt); a file removed after expiry is 404 not_found (details.reason file_removed); an export not done yet is 409 invalid_state. Errors come in the JSON error envelope.',
        params: IdParams,
        querystring: ExportDownloadQuery,
        response: {
          200: {
            description: 'The file.',
            content: {
              'text/csv': { schema: FileBody },
              'application/json': { schema: JsonFileBody, example: JSON_FILE_EXAMPLE },
              'application/x-ndjson': { schema: FileBody },
            },
          },
          '4xx': ErrorEnvelope,
          '5xx': ErrorEnvelope,
        },
      },
    },
    async (request, reply) => {
      const file = await service.openDownload(ctx, request.params.id, request.query);
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .send(file.stream);
    },
  );
};
