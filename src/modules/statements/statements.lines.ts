import { formatMoney } from '../../lib/money.js';
import type { LedgerEntryType } from '../ledger/ledger.service.js';
import type { StatementLineType } from './statements.schemas.js';

/** What a statement knows of a ledger entry when it writes its line: the entry, its plan and its payment. */
export interface EntryFacts {
  type: LedgerEntryType;
  trackId: string | null;
  amount: number;
  currency: string;
  refs: Record<string, string>;
  /** The title of the plan it moved (or, credit applied, the plan it went to). */
  planTitle: string | null;
  /** The payment it comes from, when it names one. */
  payment: {
    method: string;
    reference: string | null;
    reversalReason: string | null;
    /** Given back through its provider (its refund succeeded), not only corrected. */
    refunded: boolean;
    unappliedReason: string | null;
  } | null;
}

export interface LineKind {
  type: StatementLineType;
  description: string;
}

type Describe = (entry: EntryFacts) => LineKind;

const METHOD_WORDS: Readonly<Record<string, string>> = {
  cash: 'cash',
  bank_transfer: 'bank transfer',
  card: 'card',
  mobile_money: 'mobile money',
  pos: 'POS (card terminal)',
  cheque: 'cheque',
  direct_debit: 'direct debit',
  gateway_checkout: 'online checkout',
  virtual_account: 'transfer to a virtual account',
  other: 'other',
};

const UNAPPLIED_WORDS: Readonly<Record<string, string>> = {
  overpayment: 'more than was owed',
  plan_closed: 'the plan was closed',
  currency_mismatch: 'in another currency than the plan',
  unknown_reference: 'a reference that matched no plan',
};

const plan = (entry: EntryFacts) => entry.planTitle ?? entry.trackId ?? 'a plan';
const onPlan = (entry: EntryFacts) => (entry.planTitle ? ` (${entry.planTitle})` : '');

/** "bank transfer, ref GTB-0091": how the money came. */
function howPaid(entry: EntryFacts): string {
  const payment = entry.payment;
  if (!payment) return 'payment';
  const method = METHOD_WORDS[payment.method] ?? payment.method.replaceAll('_', ' ');
  return payment.reference ? `${method}, ref ${payment.reference}` : method;
}

/** ": cheque bounced (ref CHQ-0042)": why a payment was reversed, and which one. */
function whyReversed(entry: EntryFacts): string {
  const reason = entry.payment?.reversalReason;
  const reference = entry.payment?.reference;
  return `${reason ? `: ${reason}` : ''}${reference ? ` (ref ${reference})` : ''}`;
}

/** ": customer relocated": the reason a fee, a waiver or a write-off carries in its refs. */
const reasonOf = (entry: EntryFacts) => (entry.refs.reason ? `: ${entry.refs.reason}` : '');

/** "₦1,000.00 → ₦1,200.00": a plan's amount before and after an adjustment. */
function amountChange(entry: EntryFacts): string {
  const before = Number(entry.refs.previousAmount);
  if (!Number.isSafeInteger(before)) return '';
  return ` (${formatMoney(before, entry.currency)} → ${formatMoney(before + entry.amount, entry.currency)})`;
}

/**
 * Every ledger entry type, and the statement line it makes: a money entry's line type and description, or null for
 * an entry that moves no money (amount 0: obligations, collection outcomes, mandates), which makes no line. A new
 * ledger type is a compile error here until it has its line: one row of this table. Entries on a plan make the
 * statement's lines; entries on no plan (money held as the customer's credit) make its credit lines.
 */
export const STATEMENT_LINES = {
  'plan.charged': (e) => ({ type: 'charge', description: `Plan charged: ${plan(e)}` }),
  'plan.adjusted': (e) => ({
    type: 'adjustment',
    description: `Plan amount changed: ${plan(e)}${amountChange(e)}`,
  }),
  'payment.recorded': (e) =>
    e.trackId !== null
      ? { type: 'payment', description: `Payment — ${howPaid(e)}${onPlan(e)}` }
      : {
          type: 'payment',
          description: `Payment kept as credit — ${howPaid(e)}${
            e.payment?.unappliedReason
              ? `: ${UNAPPLIED_WORDS[e.payment.unappliedReason] ?? e.payment.unappliedReason}`
              : ''
          }`,
        },
  'payment.applied': (e) => ({ type: 'credit_applied', description: `Credit applied to ${plan(e)}` }),
  'payment.reversed': (e) => {
    const what = e.trackId !== null ? 'Payment' : 'Credit';
    return e.payment?.refunded
      ? { type: 'refund', description: `${what} refunded${whyReversed(e)}${onPlan(e)}` }
      : { type: 'reversal', description: `${what} reversed${whyReversed(e)}${onPlan(e)}` };
  },
  'obligation.created': null,
  'obligation.paid': null,
  'collection.succeeded': null,
  'collection.failed': null,
  'mandate.activated': null,
  'mandate.replaced': null,
  'mandate.revoked': null,
  'fee.charged': (e) => ({ type: 'fee', description: `Late fee${reasonOf(e)}${onPlan(e)}` }),
  'fee.waived': (e) => ({ type: 'fee_waived', description: `Late fee waived${reasonOf(e)}${onPlan(e)}` }),
  'plan.written_off': (e) => ({ type: 'write_off', description: `Written off${reasonOf(e)}${onPlan(e)}` }),
  'plan.write_off_reversed': (e) => ({
    type: 'write_off_reversed',
    description: `Write-off reversed${reasonOf(e)}${onPlan(e)}`,
  }),
  'plan.settlement_discount': (e) => ({
    type: 'settlement_discount',
    description: `Early settlement discount${onPlan(e)}`,
  }),
} satisfies Record<LedgerEntryType, Describe | null>;

/** The ledger entry types that move money: the ones that make statement lines. */
export const MONEY_ENTRY_TYPES = (Object.keys(STATEMENT_LINES) as LedgerEntryType[]).filter(
  (type) => STATEMENT_LINES[type] !== null,
);

/** The line a money entry makes. */
export function lineOf(entry: EntryFacts): LineKind {
  const describe: Describe | null = STATEMENT_LINES[entry.type];
  if (!describe) throw new Error(`a ${entry.type} ledger entry moves no money and makes no statement line`);
  return describe(entry);
}
