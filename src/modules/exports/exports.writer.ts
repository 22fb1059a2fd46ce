import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { inTransaction } from '../../db/unit-of-work.js';
import type { JobContext, RunningJob } from '../../jobs/job.js';
import { AppError } from '../../lib/app-error.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordEvent } from '../../outbox/outbox.js';
import { toApi } from './exports.mapper.js';
import * as repo from './exports.repository.js';
import { linkKey } from './exports.secret.js';
import { linkExpiry } from './exports.signing.js';
import { type ExportRow, type RowSource, rowSource } from './exports.sources.js';
import { exportStorage, StorageError, type StoredUpload, storageKeyOf } from './exports.storage.js';
import type { ExportFormat, ReportExportsTable } from './exports.table.js';

const MAX_ERROR_CHARS = 500;

/** A run stopped from outside (the worker stopping, or its lease lost): not the export's failure. */
class Interrupted extends Error {}

/** A batch as text: JSON lines (each row and a newline), or the rows of a JSON array after `written` before. */
function jsonText(batch: readonly ExportRow[], format: 'json' | 'jsonl', written: number): string {
  if (format === 'jsonl') return batch.map((row) => `${JSON.stringify(row)}\n`).join('');
  return `${written === 0 ? '\n' : ',\n'}${batch.map((row) => JSON.stringify(row)).join(',\n')}`;
}

/**
 * The chunks written to the file: for csv, each row (csv-stringify writes the header and quotes); for jsonl,
 * one JSON line per row; for json, one array (`[`, the rows joined by commas, `]`), a batch at a time either way,
 * so the rows are never all in memory. Progress is recorded once per batch, after it is handed on.
 */
async function* chunks(
  source: RowSource,
  format: ExportFormat,
  progress: (rows: number) => Promise<void>,
  signal: AbortSignal,
): AsyncGenerator<ExportRow | string> {
  let written = 0;
  if (format === 'json') yield '[';
  for await (const batch of source.batches()) {
    if (signal.aborted) throw new Interrupted('the export was interrupted');
    if (batch.length === 0) continue;
    if (format === 'csv') yield* batch;
    else yield jsonText(batch, format, written);
    written += batch.length;
    await progress(written);
  }
  if (format === 'json') yield written === 0 ? ']\n' : '\n]\n';
}

/** What a spreadsheet would run as a formula: text starting with =, +, -, @, tab or CR (or their full-width forms). */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
/** A number written as text (a negative decimal amount): no formula, so it stays a number to a spreadsheet. */
const PLAIN_NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;

/** Text that a spreadsheet would run as a formula is written with a leading '; plain numbers as they are. */
export function escapeFormula(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

function csvEncoder(source: RowSource): Transform {
  return stringify({
    header: true,
    ...(source.columns ? { columns: [...source.columns] } : {}),
    cast: { string: escapeFormula },
  });
}

/**
 * The message an export keeps when it fails: storage problems and the service's own errors as they are, anything
 * else (a database error, say) without internals; the log has the whole error.
 */
function failureMessage(error: unknown): string {
  if (error instanceof StorageError || error instanceof AppError) return error.message;
  if (error instanceof Interrupted)
    return 'The export was interrupted before it finished. Create a new export.';
  return 'The export failed while reading its rows. Create a new export; if it fails again, report its id.';
}

/** Streams the rows into the file, recording progress; returns how many rows it wrote. */
async function writeFile(
  ctx: JobContext,
  tenant: Tenant,
  row: ReportExportsTable,
  source: RowSource,
  upload: StoredUpload,
): Promise<number> {
  let rows = 0;
  const progress = async (written: number) => {
    rows = written;
    await repo.recordProgress(ctx.db, row.id, written, tenant.clock.now().toISOString());
  };
  let rowsFailed = false;
  async function* rowsOf() {
    try {
      yield* chunks(source, row.format, progress, ctx.signal);
    } catch (error) {
      rowsFailed = true;
      throw error;
    }
  }
  try {
    const input = Readable.from(rowsOf());
    if (row.format === 'csv') {
      await pipeline(input, csvEncoder(source), upload.stream, { signal: ctx.signal });
    } else {
      await pipeline(input, upload.stream, { signal: ctx.signal });
    }
  } catch (error) {
    // The file's own stream failed (disk full, not writable): a storage failure, whatever the pipeline says. When
    // reading the rows failed, the pipeline destroys the file's stream with that error: the rows' failure stands.
    if (upload.stream.errored && !rowsFailed) throw new StorageError('written', upload.stream.errored);
    throw error;
  }
  await upload.commit();
  return rows;
}

/**
 * One run of an export: `running` with its total, the rows streamed in batches into a temporary file renamed
 * when complete, then `done` with its link's expiry and `export.completed`, in one transaction. Any failure
 * leaves it `failed` with a message and no file. A run cut off by the worker stopping (or losing the job) is
 * run again from the start while the job has attempts left.
 */
export async function writeExport(
  ctx: JobContext,
  tenant: Tenant,
  exportId: string,
  job: RunningJob,
): Promise<void> {
  const found = await repo.findById(ctx.db, tenant, exportId);
  if (!found || found.status === 'done' || found.status === 'failed') return;
  const key = await linkKey(ctx);
  const storage = exportStorage(ctx.config);
  const storageKey = storageKeyOf(found);
  let upload: StoredUpload | undefined;
  let committed = false;
  try {
    const source = await rowSource(ctx, tenant, found.report, { from: found.range_from, to: found.range_to });
    const started = await repo.updateIn(ctx.db, found.id, ['queued', 'running'], {
      status: 'running',
      rows_written: 0,
      rows_total: source.total,
      updated_at: tenant.clock.now().toISOString(),
    });
    if (!started) return;
    upload = await storage.put(storageKey);
    const rows = await writeFile(ctx, tenant, found, source, upload);
    committed = true;
    await inTransaction(ctx, tenant, async (trx) => {
      const completed = tenant.clock.now();
      const done = await repo.updateIn(trx, found.id, ['running'], {
        status: 'done',
        rows_written: rows,
        rows_total: rows,
        storage_key: storageKey,
        completed_at: completed.toISOString(),
        expires_at: new Date(linkExpiry(completed.getTime()) * 1000).toISOString(),
        updated_at: completed.toISOString(),
      });
      if (!done) throw new Error(`export ${found.id} changed while its file was written`);
      await recordEvent(trx, tenant, 'export.completed', toApi(done, key));
    });
  } catch (error) {
    // Nothing of a failed run stays: its temporary file, or the file it finished but could not record.
    await (committed ? storage.remove(storageKey) : upload?.abort())?.catch((err: unknown) =>
      ctx.log.error({ err, exportId }, 'removing the file of a failed export failed'),
    );
    const interrupted = ctx.signal.aborted || error instanceof Interrupted;
    if (interrupted && job.attempt < job.maxAttempts) throw error;
    ctx.log.error({ err: error, exportId }, 'export failed');
    await repo.updateIn(ctx.db, found.id, ['queued', 'running'], {
      status: 'failed',
      error: failureMessage(interrupted ? new Interrupted() : error).slice(0, MAX_ERROR_CHARS),
      updated_at: tenant.clock.now().toISOString(),
    });
  }
}
