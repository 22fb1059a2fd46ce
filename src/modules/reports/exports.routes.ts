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

export const exportsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/reports/export',
    {
      schema: {
        operationId: 'createReportExport',
        tags,
        summary: 'Export a report to a file',
        description:
          "Queues an export of a report, or of every payment (by paidAt) or ledger entry (by occurredAt) in [from, to), as csv (a header row, then one row per record) or json (JSON lines: one JSON object per line, not an array). Money is integers of minor units beside a currency column; instants are ISO 8601 in UTC; in csv, text starting with =, +, -, @, tab or carriage return is written with a leading ' so spreadsheets do not run it. The worker streams the file in batches (progress.rows counts them); when done, downloadUrl is a signed link that works without a key for one hour, and export.completed is sent. A from after to is a validation_error naming from.",
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
          'The downloadUrl of a done export, without an API key: the link is signed (HMAC-SHA256 of the id and expires) and works for one hour. The file streams as text/csv; charset=utf-8 or application/x-ndjson (JSON lines), with Content-Disposition: attachment; filename="<report>-<id>.<csv|jsonl>". A changed id, expires or signature is 403 forbidden (details.reason invalid_signature); an expired link is 403 forbidden (details.reason expired, details.expiredAt); a file removed after expiry is 404 not_found (details.reason file_removed); an export not done yet is 409 invalid_state. Errors come in the JSON error envelope.',
        params: IdParams,
        querystring: ExportDownloadQuery,
        response: {
          200: {
            description: 'The file.',
            content: {
              'text/csv': { schema: FileBody },
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
