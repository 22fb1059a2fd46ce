import type { AppContext } from '../../context.js';
import type { DbOrTrx } from '../../db/schema.js';
import { notFound } from '../../lib/app-error.js';
import { localDate } from '../../lib/calendar.js';
import type { PdfDocument } from '../../lib/pdf/index.js';
import {
  displayReceiptCode,
  readReceiptCode,
  receiptNumberText,
  receiptUrl,
} from '../../lib/receipt-codes.js';
import type { TenantRef } from '../../lib/tenant.js';
import { getCustomerRow } from '../customers/customers.service.js';
import { getTrackRow } from '../tracks/tracks.service.js';
import { businessCard } from '../workspaces/workspaces.service.js';
import * as repo from './payments.repository.js';
import type { PaymentsTable } from './payments.table.js';
import { receiptPdf } from './receipt.pdf.js';
import type { ReceiptStanding, ReceiptView } from './receipt.view.js';

function standingOf(row: PaymentsTable): ReceiptStanding {
  if (row.status !== 'reversed') return 'valid';
  return row.refund_status === 'succeeded' ? 'refunded' : 'reversed';
}

/** A payment's receipt as it reads; undefined for a payment without one. */
export async function receiptView(ctx: AppContext, row: PaymentsTable): Promise<ReceiptView | undefined> {
  if (row.receipt_number === null || row.receipt_code === null) return undefined;
  const tenant = { workspaceId: row.workspace_id, mode: row.mode };
  const business = await businessCard(ctx.db, row.workspace_id);
  const plan = row.track_id ? await getTrackRow(ctx.db, tenant, row.track_id) : undefined;
  const customer = row.customer_id ? await getCustomerRow(ctx.db, tenant, row.customer_id) : undefined;
  const standing = standingOf(row);
  return {
    business,
    number: receiptNumberText(row.receipt_number),
    code: displayReceiptCode(row.receipt_code),
    linkCode: row.receipt_code,
    paymentId: row.id,
    amount: row.amount,
    currency: row.currency,
    method: row.method,
    reference: row.reference,
    paidOn: localDate(row.paid_at, business.timeZone),
    customer: customer?.name ?? null,
    planTitle: plan?.title ?? null,
    balanceAfter: row.balance_after,
    standing,
    endedOn: standing !== 'valid' && row.reversed_at ? localDate(row.reversed_at, business.timeZone) : null,
    reversalReason: standing === 'reversed' ? row.reversal_reason : null,
    test: row.mode === 'test',
  };
}

/** A payment's receipt number and the path of its public page; null for none (or no such payment). */
export async function receiptLinkOf(
  db: DbOrTrx,
  tenant: TenantRef,
  paymentId: string,
): Promise<{ number: string; path: string } | null> {
  const row = await repo.findById(db, tenant, paymentId);
  if (!row || row.receipt_number === null || row.receipt_code === null) return null;
  return { number: receiptNumberText(row.receipt_number), path: `/r/${row.receipt_code}` };
}

/** The receipt a code (as a person may type it) verifies, in whatever workspace it is; undefined for none. */
export async function receiptByCode(ctx: AppContext, text: string): Promise<ReceiptView | undefined> {
  const code = readReceiptCode(text);
  if (code === null) return undefined;
  const row = await repo.findByReceiptCode(ctx.db, code);
  return row ? receiptView(ctx, row) : undefined;
}

/** A payment's receipt as a PDF, ready to stream; not_found for no such payment, or one without a receipt. */
export async function receiptOfPayment(
  ctx: AppContext,
  tenant: TenantRef,
  paymentId: string,
): Promise<{ number: string; pdf: PdfDocument }> {
  const row = await repo.findById(ctx.db, tenant, paymentId);
  const view = row ? await receiptView(ctx, row) : undefined;
  if (!view) throw notFound(row ? 'receipt' : 'payment', paymentId);
  return { number: view.number, pdf: receiptPdf(view, receiptUrl(view.linkCode)) };
}
