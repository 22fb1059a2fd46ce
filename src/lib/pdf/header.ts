import { colourOr, readableOnWhite } from './colour.js';
import { bodyText, contentWidth, ensureSpace, PDF_COLOR, type PdfDocument } from './document.js';
import { PDF_FONT } from './fonts.js';

/** What a document shows of the business that sends it (a workspace's business card). */
export interface PdfBusiness {
  name: string;
  supportEmail: string | null;
  supportPhone: string | null;
  /** `#rrggbb`; paytrack's blue when null. */
  brandColor: string | null;
}

export interface PdfHeading {
  /** What the document is, large on the right: "Statement", "Receipt". */
  title: string;
  /** Short lines under the title: a period, a number, when it was made. */
  details?: readonly string[];
}

/** The business's brand colour as a document prints it, and the same colour for text on white paper. */
export function brandColours(business: Pick<PdfBusiness, 'brandColor'>): { fill: string; text: string } {
  const fill = colourOr(business.brandColor, PDF_COLOR.brand);
  return { fill, text: readableOnWhite(fill, PDF_COLOR.text) };
}

/**
 * The first page's header: a band of the business's brand colour across the top of the page, the business's name
 * and how to reach it (support e-mail and phone) on the left, the document's title and details on the right, and a
 * rule under them. Leaves `doc.y` below the rule, in body text.
 */
export function drawBusinessHeader(doc: PdfDocument, business: PdfBusiness, heading: PdfHeading): void {
  const { fill, text } = brandColours(business);
  const left = doc.page.margins.left;
  const width = contentWidth(doc);
  const top = doc.page.margins.top;
  doc.save().rect(0, 0, doc.page.width, 10).fill(fill).restore();

  const leftWidth = width * 0.58;
  const rightWidth = width - leftWidth - 12;
  const rightX = left + leftWidth + 12;

  doc.font(PDF_FONT.bold).fontSize(16).fillColor(PDF_COLOR.text);
  doc.text(business.name, left, top, { width: leftWidth });
  const contact = [business.supportEmail, business.supportPhone].filter((part): part is string => !!part);
  if (contact.length > 0) {
    doc.moveDown(0.2).font(PDF_FONT.regular).fontSize(9).fillColor(PDF_COLOR.muted);
    doc.text(contact.join('  ·  '), left, doc.y, { width: leftWidth });
  }
  const leftBottom = doc.y;

  doc.font(PDF_FONT.bold).fontSize(16).fillColor(text);
  doc.text(heading.title, rightX, top, { width: rightWidth, align: 'right' });
  doc.font(PDF_FONT.regular).fontSize(9).fillColor(PDF_COLOR.muted);
  for (const line of heading.details ?? []) {
    doc.text(line, rightX, doc.y + 1, { width: rightWidth, align: 'right' });
  }
  const bottom = Math.max(leftBottom, doc.y) + 10;
  doc
    .save()
    .moveTo(left, bottom)
    .lineTo(left + width, bottom)
    .lineWidth(1.5)
    .strokeColor(fill)
    .stroke()
    .restore();
  doc.x = left;
  doc.y = bottom + 14;
  bodyText(doc);
}

/**
 * A section heading in the brand's text colour, with a thin rule under it; starts a new page when the heading and
 * `keepWith` points after it would not fit. Leaves `doc.y` under the rule, in body text.
 */
export function drawSectionHeading(
  doc: PdfDocument,
  business: Pick<PdfBusiness, 'brandColor'>,
  heading: string,
  keepWith = 60,
): void {
  const left = doc.page.margins.left;
  const width = contentWidth(doc);
  doc.font(PDF_FONT.bold).fontSize(12);
  const height = doc.heightOfString(heading, { width }) + 8;
  ensureSpace(doc, height + keepWith);
  doc.font(PDF_FONT.bold).fontSize(12).fillColor(brandColours(business).text);
  doc.text(heading, left, doc.y, { width });
  const rule = doc.y + 2;
  doc
    .save()
    .moveTo(left, rule)
    .lineTo(left + width, rule)
    .lineWidth(0.5)
    .strokeColor(PDF_COLOR.rule)
    .stroke();
  doc.restore();
  doc.x = left;
  doc.y = rule + 6;
  bodyText(doc);
}

/** The one the document is for (a customer, a payer): a label above the name and lines such as contacts. */
export function drawParty(doc: PdfDocument, label: string, name: string, lines: readonly string[]): void {
  const left = doc.page.margins.left;
  const width = contentWidth(doc);
  doc.font(PDF_FONT.regular).fontSize(8).fillColor(PDF_COLOR.muted).text(label.toUpperCase(), left, doc.y, {
    width,
    characterSpacing: 0.5,
  });
  doc
    .font(PDF_FONT.bold)
    .fontSize(11)
    .fillColor(PDF_COLOR.text)
    .text(name, left, doc.y + 1, { width });
  doc.font(PDF_FONT.regular).fontSize(9).fillColor(PDF_COLOR.muted);
  for (const line of lines) doc.text(line, left, doc.y, { width });
  doc.x = left;
  doc.y += 12;
  bodyText(doc);
}
