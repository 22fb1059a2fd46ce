import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import {
  createPdfDocument,
  drawBusinessHeader,
  drawFacts,
  moneyText,
  type PdfDocument,
  startTable,
} from '../../src/lib/pdf/index.js';

// The PDF pieces statements and receipts are made of: fonts, header, a table that runs over pages, page numbers.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-pdf-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function written(doc: PdfDocument, name: string): Promise<string> {
  const file = path.join(dir, name);
  const out = fs.createWriteStream(file);
  doc.pipe(out);
  doc.end();
  await new Promise<void>((resolve) => out.on('finish', () => resolve()));
  return file;
}

const text = (file: string) =>
  execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(
    /[\u00a0\u202f]/g,
    ' ',
  );

/** The words pdfkit keeps laid out, per font: what `createPdfDocument` empties at every page. */
const laidOut = (doc: PdfDocument) =>
  Object.values((doc as any)._fontFamilies as Record<string, { layoutCache?: object }>).reduce(
    (n, font) => n + Object.keys(font.layoutCache ?? {}).length,
    0,
  );

describe('PDF pieces', () => {
  test('a table runs over pages with its header again, each page numbered, in DejaVu only', async () => {
    const doc = createPdfDocument({
      title: 'Receipt',
      footer: 'Adaeze Stores Ltd',
      runningHead: 'Receipt 42',
    });
    drawBusinessHeader(
      doc,
      {
        name: 'Adaeze Stores Ltd',
        supportEmail: 'help@adaeze.example',
        supportPhone: null,
        brandColor: '#ffee00',
      },
      { title: 'Receipt', details: ['No. 42'] },
    );
    drawFacts(doc, [['Amount paid', moneyText(150_000, 'NGN')]], { alignValues: 'right', width: 300 });
    const table = startTable(doc, [
      { header: 'Item', width: 3 },
      { header: 'Amount', width: 1, align: 'right' },
    ]);
    let lastPageWords = 0;
    let newPageWords = 0;
    doc.once('pageAdded', () => {
      newPageWords = laidOut(doc);
    });
    for (let i = 1; i <= 120; i++) {
      if (newPageWords === 0) lastPageWords = laidOut(doc);
      table.row([`Line ${i}`, moneyText(i * 100, 'GHS')]);
    }
    table.end();
    // A page's words are forgotten when the next page starts (which lays out only its footer and running head): a
    // long document does not keep them all.
    assert.ok(lastPageWords > 50, `${lastPageWords} words on the first page`);
    assert.ok(newPageWords < 20, `${newPageWords} words kept into the second page`);
    const file = await written(doc, 'table.pdf');
    const pages = text(file)
      .split('\f')
      .filter((page) => page.trim());
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    pages.forEach((page, i) => {
      assert.match(page, new RegExp(`Page ${i + 1}\\b`));
      assert.match(page, /Item\s+Amount/, `page ${i + 1} repeats the header row`);
      if (i > 0) assert.match(page, /Receipt 42/);
    });
    assert.match(pages[0] ?? '', /Amount paid\s+₦1,500\.00/);
    assert.match(pages.at(-1) ?? '', /Line 120\s+GH₵120\.00/);
    const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' });
    assert.doesNotMatch(fonts, /Helvetica|Times|Courier/);
    assert.match(fonts, /DejaVuSans\s/);
  });
});
