import { type Static, Type } from 'typebox';
import { Instant, Nullable } from '../shared.schemas.js';
import { EXPORT_FORMATS, EXPORT_REPORTS, EXPORT_STATUSES } from './exports.table.js';

const exportExample = {
  id: 'exp_01JD7ZR3S4T5V6W7X8Y9Z0A1B2',
  report: 'payments',
  format: 'csv',
  from: '2027-01-01T00:00:00.000Z',
  to: '2027-02-01T00:00:00.000Z',
  status: 'done',
  progress: { rows: 1842, total: 1842 },
  downloadUrl:
    'https://pay.example.com/api/v1/reports/exports/exp_01JD7ZR3S4T5V6W7X8Y9Z0A1B2/download?expires=1801576800&signature=9f2c1e7a4b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8',
  expiresAt: '2027-02-01T10:00:00.000Z',
  error: null,
  createdAt: '2027-02-01T08:59:58.000Z',
  completedAt: '2027-02-01T09:00:00.000Z',
};

export const ReportExport = Type.Object(
  {
    id: Type.String(),
    report: Type.Enum(EXPORT_REPORTS),
    format: Type.Enum(EXPORT_FORMATS, {
      description:
        'csv: a header row, then one row per record. json: one JSON document, an array of row objects. jsonl: JSON lines, one object per line.',
    }),
    from: Nullable(Instant),
    to: Nullable(Instant),
    status: Type.Enum(EXPORT_STATUSES, {
      description: 'queued (waiting for the worker), running, done (the file is ready), failed (see error).',
    }),
    progress: Type.Object(
      {
        rows: Type.Integer({ minimum: 0, description: 'Rows written so far.' }),
        total: Nullable(
          Type.Integer({
            minimum: 0,
            description:
              'Rows the file will have: counted when the run starts for payments and ledger; for summary, collections and overdue known only when done.',
          }),
        ),
      },
      { title: 'ReportExportProgress' },
    ),
    downloadUrl: Nullable(
      Type.String({
        description:
          'A signed link that downloads the file without an API key until expiresAt (one hour after completion). Null until done, and once the file is removed after expiry.',
      }),
    ),
    expiresAt: Nullable({ ...Instant, description: 'When downloadUrl stops working; null until done.' }),
    error: Nullable(Type.String({ description: 'Why the export failed; null unless failed.' })),
    createdAt: Instant,
    completedAt: Nullable(Instant),
  },
  { title: 'ReportExport', examples: [exportExample] },
);
export type ReportExport = Static<typeof ReportExport>;

export const ReportExportCreate = Type.Object(
  {
    report: Type.Enum(EXPORT_REPORTS, {
      description:
        'payments: every payment with paidAt in the range (reversed ones too); ledger: every ledger entry with occurredAt in the range; summary, collections, overdue: the rows of that report.',
    }),
    format: Type.Enum(EXPORT_FORMATS, {
      description:
        'csv (text/csv, a header row, then a row per record), json (application/json, one array of row objects) or jsonl (application/x-ndjson, JSON lines: one object per line). Exports made when json meant JSON lines read as jsonl.',
    }),
    from: Type.Optional({
      ...Instant,
      description: 'Start of the range, included; without it, from the start.',
    }),
    to: Type.Optional({ ...Instant, description: 'End of the range, excluded; without it, to the end.' }),
  },
  {
    title: 'ReportExportCreate',
    examples: [
      { report: 'payments', format: 'csv', from: '2027-01-01T00:00:00Z', to: '2027-02-01T00:00:00Z' },
    ],
    additionalProperties: false,
  },
);
export type ReportExportCreate = Static<typeof ReportExportCreate>;

export const ExportDownloadQuery = Type.Object(
  {
    expires: Type.String({ minLength: 1, maxLength: 20, description: 'Unix seconds, as in downloadUrl.' }),
    signature: Type.String({ minLength: 1, maxLength: 128, description: 'As in downloadUrl.' }),
  },
  { additionalProperties: false },
);
export type ExportDownloadQuery = Static<typeof ExportDownloadQuery>;
