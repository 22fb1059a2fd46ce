import PDFDocument from 'pdfkit';
import { PDF_FONT, pdfFontBytes } from './fonts.js';

export type PdfDocument = PDFKit.PDFDocument;

/** The colours PDFs are printed in, beside a business's own brand colour. */
export const PDF_COLOR = {
  text: '#1c1e21',
  muted: '#5f6368',
  rule: '#dadce0',
  shade: '#f1f3f4',
  /** paytrack's own blue: the brand colour of a business that has not set one. */
  brand: '#1a73e8',
} as const;

/** The body text: what a page starts with, and what a helper leaves behind. */
export const BODY_SIZE = 9.5;

export interface PdfDocumentOptions {
  /** The document's title (its metadata, shown by viewers in the title bar). */
  title: string;
  /** Who made it: the business. */
  author?: string;
  subject?: string;
  /** Written at the foot of every page, left, beside the page number on the right. */
  footer?: string;
  /** Written small at the top of every page after the first, where the first page has its full header. */
  runningHead?: string;
  /** BCP 47 language of the text; default `en`. */
  lang?: string;
}

/** The page's bottom edge for content: below it only the footer is written. */
export function pageBottom(doc: PdfDocument): number {
  return doc.page.height - doc.page.margins.bottom;
}

/** The width between the page's margins. */
export function contentWidth(doc: PdfDocument): number {
  return doc.page.width - doc.page.margins.left - doc.page.margins.right;
}

/** Sets the body text style: regular, body size, text colour. */
export function bodyText(doc: PdfDocument): PdfDocument {
  return doc.font(PDF_FONT.regular).fontSize(BODY_SIZE).fillColor(PDF_COLOR.text);
}

/** Starts a new page unless `height` more points fit above the page's bottom edge; true when it started one. */
export function ensureSpace(doc: PdfDocument, height: number): boolean {
  if (doc.y + height <= pageBottom(doc)) return false;
  doc.addPage();
  return true;
}

/** pdfkit's fonts as it keeps them: each with the words it has laid out, kept until the document ends. */
interface FontsKept {
  _fontFamilies?: Record<string, { layoutCache?: Record<string, unknown> }>;
}

/**
 * Empties each font's cache of laid-out words. Laying a word out (shaping it with the font's tables) is most of
 * the work of writing text, and a page repeats its words, so the cache stays; emptied at every page, it holds one
 * page's words, not the document's.
 */
function forgetLaidOutWords(doc: PdfDocument): void {
  for (const font of Object.values((doc as unknown as FontsKept)._fontFamilies ?? {})) {
    if (font.layoutCache) font.layoutCache = Object.create(null);
  }
}

/** Text written outside the content area (a footer, a running head) without pdfkit starting a page for it. */
function writeOutside(doc: PdfDocument, write: (margins: { top: number; bottom: number }) => void): void {
  const { x, y } = doc;
  const { top, bottom } = doc.page.margins;
  doc.page.margins.bottom = 0;
  try {
    write({ top, bottom });
  } finally {
    doc.page.margins.bottom = bottom;
    doc.x = x;
    doc.y = y;
    bodyText(doc);
  }
}

/**
 * A PDF document ready to write: A4, the DejaVu fonts registered as `PDF_FONT.regular` and `PDF_FONT.bold` (no text
 * is ever set in a standard font), every page numbered at its foot ("Page 3", with `footer` on the left) and, after
 * the first, headed by `runningHead`. Pages are written out as soon as the next one starts (nothing buffers them)
 * and laid-out words are kept for one page at a time, so a document of thousands of lines is made in flat memory.
 * The document is a readable stream: pipe it or send it, write to it (a long one with `readerCaughtUp` between
 * batches), then call `doc.end()`.
 */
export function createPdfDocument(options: PdfDocumentOptions): PdfDocument {
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: 48, bottom: 54, left: 48, right: 48 },
    autoFirstPage: false,
    bufferPages: false,
    // pdfkit keeps every word it lays out until the document ends: a long document's amounts and references would
    // each stay in memory. The cache is emptied at every page instead (`forgetLaidOutWords`).
    fontLayoutCache: true,
    compress: true,
    lang: options.lang ?? 'en',
    displayTitle: true,
    // No font at first (pdfkit would open Helvetica): the registered DejaVu Sans is chosen below. Opening DejaVu
    // here instead would leave its registered name uncached, and every later `doc.font()` would parse it again.
    font: null as unknown as string,
    info: {
      Title: options.title,
      ...(options.author ? { Author: options.author } : {}),
      ...(options.subject ? { Subject: options.subject } : {}),
      Creator: 'paytrack',
      Producer: 'paytrack',
    },
  });
  doc.registerFont(PDF_FONT.regular, pdfFontBytes(PDF_FONT.regular));
  doc.registerFont(PDF_FONT.bold, pdfFontBytes(PDF_FONT.bold));
  let pageNumber = 0;
  doc.on('pageAdded', () => {
    forgetLaidOutWords(doc);
    pageNumber += 1;
    const number = pageNumber;
    writeOutside(doc, (margins) => {
      const left = doc.page.margins.left;
      const width = contentWidth(doc);
      const footY = doc.page.height - margins.bottom + 22;
      doc.font(PDF_FONT.regular).fontSize(7.5).fillColor(PDF_COLOR.muted);
      if (options.footer) {
        doc.text(options.footer, left, footY, { width: width - 60, lineBreak: false, ellipsis: true });
      }
      doc.text(`Page ${number}`, left + width - 60, footY, { width: 60, align: 'right', lineBreak: false });
      if (number > 1 && options.runningHead) {
        doc.text(options.runningHead, left, margins.top - 22, {
          width,
          lineBreak: false,
          ellipsis: true,
        });
      }
    });
  });
  doc.addPage();
  bodyText(doc);
  return doc;
}
