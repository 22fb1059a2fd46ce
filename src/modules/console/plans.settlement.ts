import type { FastifyReply } from 'fastify';
import type { SettlementQuote } from '../tracks/settlement-quotes.schemas.js';
import { amountText, readAmount } from './amount-input.js';
import { day, esc, field, formStart, idempotencyKeyOf, money, when } from './console.html.js';
import { sendPage } from './console.layout.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { notFoundPage, planPage } from './plan.page.js';
import {
  formError,
  PAYMENT_METHODS,
  type Payment,
  type Plan,
  planHref,
  readDate,
  renameFields,
  todayOf,
  trimmed,
} from './plans.parts.js';

/** A plan's settlement quote: what clears it on a day, and the form that records that payment with the quote. */

export async function quotePage(reply: FastifyReply, visit: Visit, id: string, asOfText: string | undefined) {
  const found = await visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`);
  if (!found.ok) return notFoundPage(reply, visit);
  const plan = found.data;
  const asOf = asOfText === undefined || asOfText === '' ? todayOf(visit) : readDate(asOfText);
  if (!asOf)
    return planPage(reply, visit, id, {
      status: 422,
      problem: formError({ as_of: 'Enter the day to settle on as a date, like 2026-12-04.' }),
    });
  const quoted = await visit.api.get<SettlementQuote>(`/tracks/${encodeURIComponent(id)}/settlement-quote`, {
    as_of: asOf,
  });
  if (!quoted.ok)
    return planPage(reply, visit, id, {
      status: quoted.status,
      problem: renameFields(quoted.error, { as_of: 'Settle on' }),
    });
  const q = quoted.data;
  const cur = q.currency;
  const figures = `<div class="grid figures">
<div class="figure"><div class="label">Settles the plan</div><div class="value">${money(q.amount, cur)}</div></div>
<div class="figure"><div class="label">Balance now</div><div class="value">${money(q.balance, cur)}</div></div>
<div class="figure"><div class="label">Discount</div><div class="value">${money(q.discount, cur)}</div></div>
<div class="figure"><div class="label">Late fees included</div><div class="value">${money(q.feesIncluded, cur)}</div></div>
</div>
<p>For a payment on ${day(q.asOf)}: valid until ${when(visit, q.validUntil)}, the end of that day. A payment of exactly ${money(q.amount, cur)} with this quote completes the plan${
    q.discount > 0 ? ` and writes the discount of ${money(q.discount, cur)} off` : ''
  }.</p>`;
  const form = visit.can('record_payment')
    ? `${formStart(visit, `${planHref(id)}/settlement-quote`, { label: 'Record this payment' })}
<input type="hidden" name="settlement_quote_id" value="${esc(q.id)}"><input type="hidden" name="amount" value="${esc(amountText(q.amount, cur))}">
${field({ label: 'Method', name: 'method', options: PAYMENT_METHODS, value: 'cash' })}
${field({ label: 'Reference (optional)', name: 'reference', hint: 'A bank or receipt reference; each is used once in the workspace.', attributes: 'maxlength="120" autocomplete="off"' })}
<div class="actions"><button type="submit">Record this payment of ${money(q.amount, cur)}</button><a class="button secondary" href="${esc(planHref(id))}">Back to the plan</a></div>
</form>`
    : `<p><a href="${esc(planHref(id))}">Back to the plan</a></p>`;
  return sendPage(reply, visit, {
    title: `Settlement quote: ${plan.title}`,
    section: 'plans',
    body: `<p class="note">Quote <code>${esc(q.id)}</code>.</p>${figures}${form}`,
  });
}

export async function payQuote(reply: FastifyReply, visit: Visit, id: string, form: ConsoleForm) {
  const found = await visit.api.get<Plan>(`/tracks/${encodeURIComponent(id)}`);
  if (!found.ok) return notFoundPage(reply, visit);
  const quoteId = trimmed(form.settlement_quote_id);
  const amount = readAmount(form.amount, found.data.currency);
  const method = form.method ?? 'cash';
  const reference = trimmed(form.reference);
  const errors: Record<string, string> = {};
  if (!quoteId) errors.settlement_quote_id = 'Get a settlement quote first.';
  if (!amount.ok) errors.amount = amount.error;
  if (!PAYMENT_METHODS.some((m) => m.value === method)) errors.method = 'Choose a method.';
  if (reference.length > 120) errors.reference = 'At most 120 characters.';
  if (Object.keys(errors).length > 0 || !amount.ok)
    return planPage(reply, visit, id, { status: 422, problem: formError(errors) });
  const paid = await visit.api.send<Payment>(
    'POST',
    '/payments',
    {
      trackId: id,
      amount: amount.minor,
      method,
      settlementQuoteId: quoteId,
      ...(reference ? { reference } : {}),
    },
    idempotencyKeyOf(form),
  );
  if (paid.ok)
    return reply
      .code(303)
      .header('location', `${planHref(id)}?done=settled`)
      .send();
  return planPage(reply, visit, id, { status: paid.status, problem: paid.error });
}
