import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Config } from '../../config.js';
import type { ExportFormat, ReportExportsTable } from './exports.table.js';

/** A file being written: nothing is visible under its key until `commit`; `abort` leaves nothing behind. */
export interface StoredUpload {
  stream: Writable;
  /** Makes the written file visible under its key; call once the stream has finished. */
  commit(): Promise<void>;
  /** Drops what was written. */
  abort(): Promise<void>;
}

/** Where export files live. The local disk is the one store today; another (object storage, say) can follow. */
export interface ExportStorage {
  put(key: string): Promise<StoredUpload>;
  /** The file to read, or null when there is none under the key. */
  get(key: string): Promise<Readable | null>;
  /** Removes the file; nothing happens when there is none. */
  remove(key: string): Promise<void>;
}

/** A storage failure, told without the server's paths: the message reaches the API as the export's error. */
export class StorageError extends Error {
  constructor(action: string, cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    const what = typeof code === 'string' ? code : cause instanceof Error ? cause.name : 'unknown error';
    super(`The export file could not be ${action} (${what}).`, { cause });
    this.name = 'StorageError';
  }
}

/** The file's extension and content type for each format. */
export const FILE_TYPES: Record<ExportFormat, { ext: string; contentType: string }> = {
  csv: { ext: 'csv', contentType: 'text/csv; charset=utf-8' },
  json: { ext: 'json', contentType: 'application/json; charset=utf-8' },
  jsonl: { ext: 'jsonl', contentType: 'application/x-ndjson; charset=utf-8' },
};

/** Where an export's file goes in the storage. */
export function storageKeyOf(row: Pick<ReportExportsTable, 'id' | 'workspace_id' | 'format'>): string {
  return `exports/${row.workspace_id}/${row.id}.${FILE_TYPES[row.format].ext}`;
}

const KEY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*\.[a-z]+$/;

/** Files under a directory (`DATA_DIR`): written to a temporary name beside their key and renamed when complete. */
export class LocalDiskStorage implements ExportStorage {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`not a storage key: ${key}`);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string): Promise<StoredUpload> {
    const target = this.pathOf(key);
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.mkdir(path.dirname(target), { recursive: true });
    } catch (error) {
      throw new StorageError('written', error);
    }
    const stream = createWriteStream(temp, { flags: 'wx' });
    // Errors reach whoever pipes into the stream; this keeps one that comes first from going unhandled.
    stream.on('error', () => {});
    let closed = false;
    return {
      stream,
      async commit() {
        try {
          await finished(stream);
          const file = await fs.open(temp, 'r+');
          try {
            await file.sync();
          } finally {
            await file.close();
          }
          await fs.rename(temp, target);
          closed = true;
        } catch (error) {
          throw new StorageError('written', error);
        }
      },
      async abort() {
        if (closed) return;
        closed = true;
        // The file may still be opening: wait until the stream has closed, or it could appear after the removal.
        if (!stream.closed) {
          const gone = new Promise<void>((resolve) => stream.once('close', () => resolve()));
          stream.destroy();
          await gone;
        }
        await fs.rm(temp, { force: true });
      },
    };
  }

  async get(key: string): Promise<Readable | null> {
    try {
      const file = await fs.open(this.pathOf(key), 'r');
      return file.createReadStream();
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return null;
      throw new StorageError('read', error);
    }
  }

  async remove(key: string): Promise<void> {
    try {
      await fs.rm(this.pathOf(key), { force: true });
    } catch (error) {
      throw new StorageError('removed', error);
    }
  }
}

/** The export storage the configuration names: the local disk under `DATA_DIR`. */
export function exportStorage(config: Readonly<Config>): ExportStorage {
  return new LocalDiskStorage(config.dataDir);
}
