import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { inSnapshot } from '../../db/unit-of-work.js';
import { localDateIn } from '../../lib/calendar.js';
import { addExact } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import { negated, readHead, type StatementHead } from './statements.head.js';
import { lineOf } from './statements.lines.js';
import { writeStatementPdf } from './statements.pdf.js';
import * as repo from './statements.repository.js';
import type { CurrencyStatement, Statement, StatementLine, StatementQuery } from './statements.schemas.js';

/** Lines read at once: a statement of any length is read in pages of this many. */
export const LINES_PER_READ = 500;

/**
 * The lines of one currency on one side, page by page, each with the running balance from `opening`. Credit lines
 * carry the change to the credit held (the ledger amount's opposite).
 */
export async function* linePages(
  ctx: AppContext,
  db: DbOrTrx,
  tenant: Tenant,
  head: StatementHead,
  currency: string,
  side: repo.Side,
): AsyncGenerator<StatementLine[]> {
  const figures = head.currencies.find((c) => c.currency === currency);
  if (!figures) return;
  let balance = side === 'plans' ? figures.openingBalance : figures.credit.openingBalance;
  let after: repo.LinePosition | null = null;
  const dateOf = localDateIn(head.business.timeZone);
  for (;;) {
    const rows = await repo.linePage(
      db,
      ctx.dialect,
      tenant,
      { ...head.scope, currency },
      side,
      head.period.start,
      after,
      LINES_PER_READ,
    );
    if (rows.length === 0) return;
    const lines = rows.map((row): StatementLine => {
      const refs = JSON.parse(row.refs) as Record<string, string>;
      const kind = lineOf({
        type: row.type,
        trackId: row.track_id,
        amount: row.amount,
        currency,
        refs,
        planTitle: row.title,
        payment:
          row.method === null
            ? null
            : {
                method: row.method,
                reference: row.reference,
                reversalReason: row.reversal_reason,
                refunded: row.refund_status === 'succeeded',
                unappliedReason: row.unapplied_reason,
              },
      });
      const amount = side === 'plans' ? row.amount : negated(row.amount);
      balance = addExact(balance, amount);
      return {
        date: dateOf(row.occurred_at),
        type: kind.type,
        description: kind.description,
        amount,
        balance,
        ref: refs.paymentId ?? row.track_id ?? row.id,
        trackId: row.track_id,
      };
    });
    yield lines;
    const last = rows[rows.length - 1] as (typeof rows)[number];
    after = { occurredAt: last.occurred_at, id: last.id };
    if (rows.length < LINES_PER_READ) return;
  }
}

/** The statement as JSON: its head and every line, read in one snapshot so that its figures agree exactly. */
export async function customerStatement(
  ctx: AppContext,
  tenant: Tenant,
  customerId: string,
  query: StatementQuery,
): Promise<Statement> {
  return inSnapshot(ctx, async (trx) => {
    const head = await readHead(ctx, trx, tenant, customerId, query);
    const currencies: CurrencyStatement[] = [];
    for (const figures of head.currencies) {
      const lines: StatementLine[] = [];
      for await (const page of linePages(ctx, trx, tenant, head, figures.currency, 'plans')) {
        lines.push(...page);
      }
      const creditLines: StatementLine[] = [];
      for await (const page of linePages(ctx, trx, tenant, head, figures.currency, 'credit')) {
        creditLines.push(...page);
      }
      currencies.push({
        currency: figures.currency,
        openingBalance: figures.openingBalance,
        lines,
        closingBalance: figures.closingBalance,
        credit: {
          openingBalance: figures.credit.openingBalance,
          lines: creditLines,
          closingBalance: figures.credit.closingBalance,
        },
        overdue: figures.overdue,
        nextDue: figures.nextDue,
      });
    }
    return {
      customer: head.customer,
      from: head.period.from,
      to: head.period.to,
      timezone: head.business.timeZone,
      asOf: head.asOf,
      currencies,
    };
  });
}

/** A statement PDF on its way: its file name, and the document streaming as it is written. */
export interface StatementPdf {
  filename: string;
  stream: Readable;
}

/**
 * The statement as a PDF. The head is read (and the query checked, the customer found) before anything is sent;
 * then the document streams while its lines are read page by page, never all at once, and stops when `signal` says
 * the reader is gone. A failure midway ends the stream with an error (the client sees a cut-off file), given to
 * `onError`.
 */
export async function customerStatementPdf(
  ctx: AppContext,
  tenant: Tenant,
  customerId: string,
  query: StatementQuery,
  options: { signal: AbortSignal; onError: (error: unknown) => void },
): Promise<StatementPdf> {
  const head = await inSnapshot(ctx, (trx) => readHead(ctx, trx, tenant, customerId, query));
  const doc = writeStatementPdf(
    head,
    (currency, side) => linePages(ctx, ctx.db, tenant, head, currency, side),
    options,
  );
  return {
    filename: `statement-${head.customer.id}-${head.period.from}-${head.period.to}.pdf`,
    stream: doc,
  };
}

/** Whether the request asks for the PDF: `format=pdf`, or no `format` and an Accept header preferring it to JSON. */
export function wantsPdf(format: StatementQuery['format'], accept: string | undefined): boolean {
  if (format !== undefined) return format === 'pdf';
  if (!accept) return false;
  let pdf = 0;
  let json = 0;
  let order = 0;
  let pdfFirst = false;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    if (!(weight > 0)) continue;
    order += 1;
    if (type.trim() === 'application/pdf' && weight > pdf) {
      pdf = weight;
      if (order === 1) pdfFirst = true;
    } else if (['application/json', 'application/*', '*/*'].includes(type.trim()) && weight > json) {
      json = weight;
    }
  }
  return pdf > json || (pdf > 0 && pdf === json && pdfFirst);
}
