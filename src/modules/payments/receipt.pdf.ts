import {
  bodyText,
  brandColours,
  createPdfDocument,
  drawBusinessHeader,
  drawFacts,
  PDF_COLOR,
  PDF_FONT,
  type PdfDocument,
} from '../../lib/pdf/index.js';
import { receiptFacts, standingInWords } from './receipt.page.js';
import type { ReceiptView } from './receipt.view.js';

/**
 * A receipt as a one-page PDF: the business's header in its colour, whether the receipt still stands, its facts,
 * and where anyone can check it (its public page and verification code). Ended, ready to stream.
 */
export function receiptPdf(view: ReceiptView, url: string): PdfDocument {
  const doc = createPdfDocument({
    title: `Receipt ${view.number}, ${view.business.name}`,
    author: view.business.name,
    subject: `Receipt ${view.number}: a payment to ${view.business.name}`,
    footer: `${view.business.name} · Receipt ${view.number}`,
  });
  drawBusinessHeader(doc, view.business, {
    title: 'Receipt',
    details: [view.number, ...(view.test ? ['Test mode: no money moved'] : [])],
  });
  const standing = standingInWords(view);
  const colour = view.standing === 'valid' ? brandColours(view.business).text : '#b3261e';
  doc.moveDown(0.5).font(PDF_FONT.bold).fontSize(11).fillColor(colour).text(standing);
  doc.moveDown(0.8);
  drawFacts(doc, receiptFacts(view), { labelShare: 0.3 });
  doc.moveDown(1.2);
  bodyText(doc)
    .fillColor(PDF_COLOR.muted)
    .text(`Check this receipt at ${url} (verification code ${view.code}).`);
  doc.end();
  return doc;
}
