import type { PdfDocument } from './document.js';

/** What a document may hold written and not yet read before its writer waits: a few pages. */
const HELD_BYTES = 256 * 1024;

/**
 * A writer's pause between batches of content: gives the event loop a turn (the document's reader and other
 * requests run, however fast the writer is: on SQLite every read completes without one), then, while the document
 * holds more than a few pages that its reader has not taken (a slow client), waits until it has, so a document
 * never holds more than that. Resolves at once when the document is closed or destroyed (its reader gone): the
 * writer then checks `doc.destroyed` and stops.
 */
export async function readerCaughtUp(doc: PdfDocument, heldBytes = HELD_BYTES): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (doc.readableLength <= heldBytes || doc.destroyed || doc.readableEnded) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      doc.off('data', check);
      doc.off('resume', listen);
      doc.off('close', done);
      doc.off('error', done);
      resolve();
    };
    const check = () => {
      if (doc.readableLength <= heldBytes || doc.destroyed) done();
    };
    const listen = () => doc.on('data', check);
    doc.once('close', done);
    doc.once('error', done);
    // A listener of 'data' would start a stream no one reads yet: until it is piped, wait for that.
    if (doc.readableFlowing === null) doc.once('resume', listen);
    else listen();
  });
}

/** A short document's bytes (a receipt to attach to an e-mail): read whole, once it ends. */
export async function pdfBytes(doc: PdfDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of doc) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
