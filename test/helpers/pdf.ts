import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The text of a PDF (a file, or its bytes) as pdftotext lays it out, its spaces made plain (Intl writes "KES 1"
 * with a no-break space).
 */
export function pdfText(pdf: string | Buffer): string {
  let file = typeof pdf === 'string' ? pdf : '';
  let dir = '';
  if (typeof pdf !== 'string') {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paytrack-pdf-'));
    file = path.join(dir, 'document.pdf');
    fs.writeFileSync(file, pdf);
  }
  try {
    return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(
      /[\u00a0\u202f]/g,
      ' ',
    );
  } catch (error) {
    throw new Error(
      `pdftotext (Debian's poppler-utils) reads the PDF: apt-get install -y poppler-utils (${String(error)})`,
    );
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}
