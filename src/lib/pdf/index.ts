// PDF documents for people (statements, receipts): the pieces every such document is made of.

export { colourOr, inkOn, readableOnWhite } from './colour.js';
export {
  BODY_SIZE,
  bodyText,
  contentWidth,
  createPdfDocument,
  ensureSpace,
  PDF_COLOR,
  type PdfDocument,
  type PdfDocumentOptions,
  pageBottom,
} from './document.js';
export { PDF_FONT, PDF_FONT_FILES, type PdfFont, pdfFontBytes } from './fonts.js';
export {
  brandColours,
  drawBusinessHeader,
  drawParty,
  drawSectionHeading,
  type PdfBusiness,
  type PdfHeading,
} from './header.js';
export { pdfBytes, readerCaughtUp } from './stream.js';
export {
  drawFacts,
  type PdfColumn,
  type PdfRowStyle,
  PdfTable,
  type PdfTableOptions,
  startTable,
} from './table.js';
export { dateText, momentText, moneyText } from './text.js';
