import {
  bodyText,
  contentWidth,
  createPdfDocument,
  dateText,
  drawBusinessHeader,
  drawFacts,
  drawParty,
  drawSectionHeading,
  ensureSpace,
  momentText,
  moneyText,
  PDF_COLOR,
  PDF_FONT,
  type PdfColumn,
  type PdfDocument,
  readerCaughtUp,
  startTable,
} from '../../lib/pdf/index.js';
import type { CurrencyHead, StatementHead } from './statements.head.js';
import type { Side } from './statements.repository.js';
import type { StatementLine } from './statements.schemas.js';

/** The lines of one currency on one side, page by page, as the statement's reader gives them. */
export type ReadLines = (currency: string, side: Side) => AsyncIterable<StatementLine[]>;

/** Rows written between two turns of the event loop: about 50 ms of work, so other requests are not held up. */
const ROWS_PER_TURN = 100;

const LINE_COLUMNS: readonly PdfColumn[] = [
  { header: 'Date', width: 1.25 },
  { header: 'Description', width: 4.6 },
  { header: 'Amount', width: 1.6, align: 'right' },
  { header: 'Balance', width: 1.6, align: 'right' },
];

const SUMMARY_COLUMNS: readonly PdfColumn[] = [
  { header: 'Currency', width: 1.1 },
  { header: 'Opening', width: 1.5, align: 'right' },
  { header: 'Closing', width: 1.5, align: 'right' },
  { header: 'Credit held', width: 1.4, align: 'right' },
  { header: 'Overdue now', width: 1.5, align: 'right' },
  { header: 'Next due', width: 2.2, align: 'right' },
];

const BUCKET_WORDS: Readonly<Record<string, string>> = {
  '1-30': '1–30 days overdue',
  '31-60': '31–60 days overdue',
  '61-90': '61–90 days overdue',
  '91+': 'over 90 days overdue',
};

const currencyNames = new Intl.DisplayNames('en', { type: 'currency' });

function currencyHeading(currency: string): string {
  const name = currencyNames.of(currency);
  return name && name !== currency ? `${currency} — ${name}` : currency;
}

const nextDueText = (figures: CurrencyHead) =>
  figures.nextDue
    ? `${moneyText(figures.nextDue.amount, figures.currency)} on ${dateText(figures.nextDue.date)}`
    : 'nothing';

/** A muted note in small type. */
function note(doc: PdfDocument, text: string): void {
  doc.font(PDF_FONT.regular).fontSize(8).fillColor(PDF_COLOR.muted);
  ensureSpace(doc, doc.heightOfString(text, { width: contentWidth(doc) }));
  doc.text(text, doc.page.margins.left, doc.y, { width: contentWidth(doc) });
  doc.y += 6;
  bodyText(doc);
}

/** One table of lines: its opening row, every line as it is read, its closing row. False when the reader left. */
async function linesTable(
  doc: PdfDocument,
  lines: AsyncIterable<StatementLine[]>,
  currency: string,
  labels: { opening: string; closing: string },
  figures: { opening: number; closing: number },
): Promise<boolean> {
  const table = startTable(doc, LINE_COLUMNS);
  table.row(['', labels.opening, '', moneyText(figures.opening, currency)], { bold: true });
  let sinceTurn = 0;
  for await (const page of lines) {
    for (const line of page) {
      table.row([
        dateText(line.date),
        line.description,
        moneyText(line.amount, currency),
        moneyText(line.balance, currency),
      ]);
      sinceTurn += 1;
      if (sinceTurn < ROWS_PER_TURN) continue;
      sinceTurn = 0;
      await readerCaughtUp(doc);
      if (doc.destroyed) return false;
    }
  }
  table.row(['', labels.closing, '', moneyText(figures.closing, currency)], { bold: true });
  table.end();
  return true;
}

async function writeCurrency(
  doc: PdfDocument,
  head: StatementHead,
  figures: CurrencyHead,
  readLines: ReadLines,
): Promise<boolean> {
  const { currency } = figures;
  const { from, to } = head.period;
  drawSectionHeading(doc, head.business, currencyHeading(currency));
  const written = await linesTable(
    doc,
    readLines(currency, 'plans'),
    currency,
    { opening: `Opening balance, ${dateText(from)}`, closing: `Closing balance, ${dateText(to)}` },
    { opening: figures.openingBalance, closing: figures.closingBalance },
  );
  if (!written) return false;

  const { credit } = figures;
  if (credit.openingBalance !== 0 || credit.closingBalance !== 0 || credit.lineCount > 0) {
    ensureSpace(doc, 80);
    doc.font(PDF_FONT.bold).fontSize(10).fillColor(PDF_COLOR.text);
    doc.text('Credit held (money received on no plan)', doc.page.margins.left, doc.y);
    doc.y += 4;
    const creditWritten = await linesTable(
      doc,
      readLines(currency, 'credit'),
      currency,
      { opening: `Credit held, ${dateText(from)}`, closing: `Credit held, ${dateText(to)}` },
      { opening: credit.openingBalance, closing: credit.closingBalance },
    );
    if (!creditWritten) return false;
  }

  ensureSpace(doc, 100);
  doc.font(PDF_FONT.bold).fontSize(10).fillColor(PDF_COLOR.text);
  doc.text(
    `Overdue and next due, as of ${momentText(head.asOf, head.business.timeZone)}`,
    doc.page.margins.left,
    doc.y,
  );
  doc.y += 4;
  drawFacts(
    doc,
    [
      ['Overdue now', moneyText(figures.overdue.total, currency)],
      ...Object.entries(figures.overdue.buckets).map(
        ([bucket, amount]) => [`  ${BUCKET_WORDS[bucket] ?? bucket}`, moneyText(amount, currency)] as const,
      ),
      ['Next due', nextDueText(figures)],
    ],
    { width: contentWidth(doc) * 0.62, alignValues: 'right' },
  );
  doc.y += 10;
  return true;
}

async function write(doc: PdfDocument, head: StatementHead, readLines: ReadLines): Promise<void> {
  const { business, customer, period } = head;
  drawBusinessHeader(doc, business, {
    title: 'Statement of account',
    details: [
      `${dateText(period.from)} – ${dateText(period.to)}`,
      `Made ${momentText(head.asOf, business.timeZone)}`,
    ],
  });
  drawParty(
    doc,
    'Statement for',
    customer.name,
    [customer.email, customer.phone, `Customer ${customer.id}`].filter((line): line is string => !!line),
  );

  if (head.currencies.length === 0) {
    note(
      doc,
      `Nothing to show: the customer had no charges, payments or credit up to ${dateText(period.to)}.`,
    );
    return;
  }
  const summary = startTable(doc, SUMMARY_COLUMNS, { stripe: null });
  for (const figures of head.currencies) {
    summary.row([
      figures.currency,
      moneyText(figures.openingBalance, figures.currency),
      moneyText(figures.closingBalance, figures.currency),
      moneyText(figures.credit.closingBalance, figures.currency),
      moneyText(figures.overdue.total, figures.currency),
      nextDueText(figures),
    ]);
  }
  summary.end();
  note(
    doc,
    `Opening and closing balances are what the customer's plans owed at the start of ${dateText(period.from)} and at the end of ${dateText(period.to)} (dates in ${business.timeZone}); negative amounts are payments and credit. Credit held is money received on no plan, kept apart from the balance. Overdue and next due are as of when this statement was made. Each currency is shown on its own; amounts are never added across currencies.`,
  );
  doc.y += 6;

  for (const figures of head.currencies) {
    if (!(await writeCurrency(doc, head, figures, readLines))) return;
  }
}

/**
 * The statement PDF: the business's header, the customer, a summary per currency, then per currency every line with
 * its running balance between the opening and closing balances, the credit held, what is overdue now by age and
 * what falls due next; every page numbered. Returned at once and written as it streams: lines are read a page at a
 * time, and the writer waits for a slow reader; when the reader is gone it stops. A failure midway goes to `onError`
 * and ends the stream with it.
 */
export function writeStatementPdf(
  head: StatementHead,
  readLines: ReadLines,
  options: {
    /** Aborted when the reader is gone (the client closed the connection): the writer stops, the document is dropped. */
    signal: AbortSignal;
    onError: (error: unknown) => void;
  },
): PdfDocument {
  const { business, customer, period } = head;
  const span = `${dateText(period.from)} – ${dateText(period.to)}`;
  const doc = createPdfDocument({
    title: `Statement for ${customer.name}, ${span}`,
    author: business.name,
    subject: `Statement of account: ${business.name} and ${customer.name}, ${span}`,
    footer: `${business.name} · Statement for ${customer.name} · ${span}`,
    runningHead: `${business.name} — Statement for ${customer.name}, ${span}`,
  });
  const readerGone = () => {
    if (!doc.readableEnded) doc.destroy();
  };
  if (options.signal.aborted) readerGone();
  else options.signal.addEventListener('abort', readerGone, { once: true });
  write(doc, head, readLines).then(
    () => {
      options.signal.removeEventListener('abort', readerGone);
      if (!doc.destroyed) doc.end();
    },
    (error: unknown) => {
      options.signal.removeEventListener('abort', readerGone);
      options.onError(error);
      doc.destroy(error instanceof Error ? error : new Error(String(error)));
    },
  );
  return doc;
}
