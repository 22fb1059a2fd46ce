import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The fonts every PDF of the service is set in: DejaVu Sans and DejaVu Sans Bold, shipped with the package
 * (`dejavu-fonts-ttf`), embedded as subsets. They carry the currency signs the service writes (₦ € £ ₵ ₹ ¥ and
 * the rest of Latin, Greek and Cyrillic), which PDF's standard Helvetica lacks; no text falls back to it.
 */
export const PDF_FONT = { regular: 'Sans', bold: 'Sans-Bold' } as const;
export type PdfFont = (typeof PDF_FONT)[keyof typeof PDF_FONT];

const fontDir = path.join(
  path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')),
  'ttf',
);

/** Where the font files are, for a reader that checks them. */
export const PDF_FONT_FILES: Readonly<Record<PdfFont, string>> = {
  [PDF_FONT.regular]: path.join(fontDir, 'DejaVuSans.ttf'),
  [PDF_FONT.bold]: path.join(fontDir, 'DejaVuSans-Bold.ttf'),
};

let bytes: Map<PdfFont, Buffer> | undefined;

/** The font files' bytes, read once per process: each document parses them, none reads them again. */
export function pdfFontBytes(font: PdfFont): Buffer {
  bytes ??= new Map(
    (Object.entries(PDF_FONT_FILES) as [PdfFont, string][]).map(([name, file]) => [
      name,
      fs.readFileSync(file),
    ]),
  );
  return bytes.get(font) as Buffer;
}
