import { type Static, Type } from 'typebox';
import { CalendarDate, Instant } from '../shared.schemas.js';

export const SettlementQuoteQuery = Type.Object(
  {
    as_of: Type.Optional({
      ...CalendarDate,
      description:
        'The day the plan would be settled (YYYY-MM-DD, workspace time zone): today (the default) up to 366 days ahead.',
    }),
  },
  { additionalProperties: false },
);
export type SettlementQuoteQuery = Static<typeof SettlementQuoteQuery>;

export const SettlementQuote = Type.Object(
  {
    id: Type.String({ description: 'sq_: name it as settlementQuoteId in POST /payments.' }),
    trackId: Type.String(),
    asOf: CalendarDate,
    amount: Type.Integer({
      description:
        'What clears the plan that day: balance - discount. A payment with the quote is exactly this.',
    }),
    discount: Type.Integer({
      description:
        "The early-settlement discount: for each of the plan's schedules with a policy (early_settlement_discount), on what its open instalments due after asOf still ask; at least 0 and less than the balance. Written off (ledger plan.settlement_discount) when the quote is paid.",
    }),
    feesIncluded: Type.Integer({
      description: "What the plan's open late fees still ask: already inside the balance, shown apart.",
    }),
    validUntil: {
      ...Instant,
      description: 'The end of asOf in the workspace time zone (the start of the day after it).',
    },
    currency: Type.String(),
    balance: Type.Integer({
      description: "The plan's balance when quoted; a payment with the quote needs it unchanged.",
    }),
  },
  {
    title: 'SettlementQuote',
    examples: [
      {
        id: 'sq_01JD7ZC3D4E5F6G7H8J9K1M2N3',
        trackId: 'trk_01JD7Z6P4S9T2V5W8X0Y2Z4B6C',
        asOf: '2026-11-20',
        amount: 14625000,
        discount: 375000,
        feesIncluded: 0,
        validUntil: '2026-11-20T23:00:00.000Z',
        currency: 'NGN',
        balance: 15000000,
      },
    ],
  },
);
export type SettlementQuote = Static<typeof SettlementQuote>;
