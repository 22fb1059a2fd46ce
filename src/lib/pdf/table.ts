import { bodyText, contentWidth, PDF_COLOR, type PdfDocument, pageBottom } from './document.js';
import { PDF_FONT } from './fonts.js';

export interface PdfColumn {
  header: string;
  /** Its share of the table's width, against the other columns' (3 and 1: three quarters and a quarter). */
  width: number;
  align?: 'left' | 'right';
}

export interface PdfTableOptions {
  fontSize?: number;
  /** The header row's background; a light grey by default. */
  headerFill?: string;
  /** Every other row's background, or null for none. */
  stripe?: string | null;
}

export interface PdfRowStyle {
  bold?: boolean;
  /** The row's background, over the stripe. */
  fill?: string;
  color?: string;
}

const PAD_X = 4;
const PAD_Y = 3;

/**
 * A table written row by row as the rows come: each row is as tall as its longest cell (text wraps within its
 * column), and a row that does not fit on the page starts a new page, which repeats the header row first. Nothing
 * is kept of the rows written, so a table of any length takes the same memory.
 */
export class PdfTable {
  private readonly widths: number[];
  private readonly fontSize: number;
  private readonly headerFill: string;
  private readonly stripe: string | null;
  private rowsOnPage = 0;

  constructor(
    private readonly doc: PdfDocument,
    private readonly columns: readonly PdfColumn[],
    options: PdfTableOptions = {},
  ) {
    const total = columns.reduce((sum, column) => sum + column.width, 0);
    const width = contentWidth(doc);
    this.widths = columns.map((column) => (column.width / total) * width);
    this.fontSize = options.fontSize ?? 8.5;
    this.headerFill = options.headerFill ?? PDF_COLOR.shade;
    this.stripe = options.stripe === undefined ? '#fafafa' : options.stripe;
  }

  /** The header row, on a new page first when it and one row would not fit. */
  header(): this {
    const height = this.heightOf(
      this.columns.map((c) => c.header),
      true,
    );
    if (this.doc.y + height * 2 > pageBottom(this.doc)) this.doc.addPage();
    this.draw(
      this.columns.map((c) => c.header),
      height,
      { bold: true, fill: this.headerFill, color: PDF_COLOR.muted },
    );
    this.rowsOnPage = 0;
    return this;
  }

  /** One row, its cells in the columns' order; on a new page (after the header again) when it does not fit. */
  row(cells: readonly string[], style: PdfRowStyle = {}): this {
    const height = this.heightOf(cells, style.bold ?? false);
    if (this.doc.y + height > pageBottom(this.doc)) {
      this.doc.addPage();
      this.header();
    }
    const fill = style.fill ?? (this.stripe && this.rowsOnPage % 2 === 1 ? this.stripe : undefined);
    this.draw(cells, height, { ...style, ...(fill ? { fill } : {}) });
    this.rowsOnPage += 1;
    return this;
  }

  /** A thin rule under the last row, and some space. Leaves the document in body text. */
  end(): void {
    const left = this.doc.page.margins.left;
    const y = this.doc.y;
    this.doc
      .save()
      .moveTo(left, y)
      .lineTo(left + contentWidth(this.doc), y)
      .lineWidth(0.5)
      .strokeColor(PDF_COLOR.rule)
      .stroke()
      .restore();
    this.doc.x = left;
    this.doc.y = y + 10;
    bodyText(this.doc);
  }

  private font(bold: boolean): void {
    this.doc.font(bold ? PDF_FONT.bold : PDF_FONT.regular).fontSize(this.fontSize);
  }

  private heightOf(cells: readonly string[], bold: boolean): number {
    this.font(bold);
    const oneLine = this.doc.currentLineHeight(true);
    let tallest = oneLine;
    cells.forEach((cell, i) => {
      const width = (this.widths[i] ?? 0) - PAD_X * 2;
      // Most cells fit on one line, and measuring a width is far cheaper than wrapping the text to measure it.
      if (!cell.includes('\n') && this.doc.widthOfString(cell) <= width) return;
      tallest = Math.max(tallest, this.doc.heightOfString(cell, { width }));
    });
    return tallest + PAD_Y * 2;
  }

  private draw(cells: readonly string[], height: number, style: PdfRowStyle): void {
    const doc = this.doc;
    const top = doc.y;
    const left = doc.page.margins.left;
    if (style.fill) {
      doc.save().rect(left, top, contentWidth(doc), height).fill(style.fill).restore();
    }
    this.font(style.bold ?? false);
    doc.fillColor(style.color ?? PDF_COLOR.text);
    let x = left;
    cells.forEach((cell, i) => {
      const width = this.widths[i] ?? 0;
      doc.text(cell, x + PAD_X, top + PAD_Y, {
        width: width - PAD_X * 2,
        align: this.columns[i]?.align ?? 'left',
      });
      x += width;
    });
    doc.x = left;
    doc.y = top + height;
  }
}

/** A table with its header row written: `startTable(doc, columns).row([...]).row([...]).end()`. */
export function startTable(
  doc: PdfDocument,
  columns: readonly PdfColumn[],
  options: PdfTableOptions = {},
): PdfTable {
  return new PdfTable(doc, columns, options).header();
}

/**
 * Label and value pairs in two columns (a receipt's facts, a statement's totals), the values right-aligned when
 * asked; a pair that does not fit starts a new page. Leaves the document in body text.
 */
export function drawFacts(
  doc: PdfDocument,
  facts: readonly (readonly [label: string, value: string])[],
  options: { labelShare?: number; alignValues?: 'left' | 'right'; boldValues?: boolean; width?: number } = {},
): void {
  const left = doc.page.margins.left;
  const width = options.width ?? contentWidth(doc);
  const labelWidth = width * (options.labelShare ?? 0.45);
  const valueWidth = width - labelWidth;
  for (const [label, value] of facts) {
    doc.font(PDF_FONT.regular).fontSize(9.5);
    const labelHeight = doc.heightOfString(label, { width: labelWidth - 6 });
    doc.font(options.boldValues ? PDF_FONT.bold : PDF_FONT.regular);
    const height = Math.max(labelHeight, doc.heightOfString(value, { width: valueWidth })) + 3;
    if (doc.y + height > pageBottom(doc)) doc.addPage();
    const top = doc.y;
    doc
      .font(PDF_FONT.regular)
      .fillColor(PDF_COLOR.muted)
      .text(label, left, top, { width: labelWidth - 6 });
    doc
      .font(options.boldValues ? PDF_FONT.bold : PDF_FONT.regular)
      .fillColor(PDF_COLOR.text)
      .text(value, left + labelWidth, top, { width: valueWidth, align: options.alignValues ?? 'left' });
    doc.x = left;
    doc.y = top + height;
  }
  bodyText(doc);
}
