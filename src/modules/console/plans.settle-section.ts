import type { LedgerEntry } from '../ledger/ledger.schemas.js';
import { esc, field, formStart, money, when } from './console.html.js';
import type { ConsoleForm, Visit } from './console.visit.js';
import { type Plan, planHref, todayOf } from './plans.parts.js';

/**
 * The end of a plan on its page: a settlement quote (what clears it on a day), and for owners and admins writing
 * off what will not be paid, and reversing the last write-off while nothing has moved since.
 */

export const WRITE_OFF_LABELS: Readonly<Record<string, string>> = {
  write_off_amount: 'Amount to write off',
  write_off_reason: 'Reason',
};

/** The plan's last money change (its newest ledger entry that moved the balance), when it is a write-off. */
export const writeOffToReverse = (entries: readonly LedgerEntry[]) => {
  const last = entries.find((e) => e.amount !== 0);
  return last?.type === 'plan.written_off' ? last : undefined;
};

export function settleSection(
  visit: Visit,
  plan: Plan,
  lastWriteOff: LedgerEntry | undefined,
  state: { values?: ConsoleForm; errors?: Record<string, string> } = {},
): string {
  const open = plan.status === 'active' && plan.balance > 0;
  const owner = visit.can('edit_records');
  const values = state.values ?? {};
  const errors = state.errors ?? {};
  const quote = open
    ? `<section class="card" aria-label="Settle the plan"><form method="get" action="${esc(`${planHref(plan.id)}/settlement-quote`)}" class="stack" aria-label="Settlement quote">
${field({ label: 'Settle on', name: 'as_of', type: 'date', value: todayOf(visit), hint: 'What clears the plan that day, with any early-settlement discount; today or up to a year ahead.', attributes: `min="${todayOf(visit)}"` })}
<div class="actions"><button type="submit" class="secondary">Settlement quote</button></div>
</form></section>`
    : '';
  const writeOff =
    owner && open
      ? `<details class="card"${state.values ? ' open' : ''}><summary>Write off</summary>
<p class="note">Gives up what will not be paid: the balance drops (it is not a payment) and reports count it written off, not outstanding.</p>
${formStart(visit, `${planHref(plan.id)}/write-off`, { label: 'Write off' })}
${field({ label: `Amount to write off (${plan.currency}, optional)`, name: 'write_off_amount', value: values.write_off_amount, hint: `Empty: the whole balance of ${money(plan.balance, plan.currency)}.`, error: errors.write_off_amount, attributes: 'inputmode="decimal" autocomplete="off"' })}
${field({ label: 'Reason', name: 'write_off_reason', type: 'textarea', value: values.write_off_reason, required: true, hint: 'Kept on the ledger and in the audit trail.', error: errors.write_off_reason, attributes: 'maxlength="500"' })}
<div class="actions"><button type="submit" class="danger">Write off</button></div>
</form></details>`
      : '';
  const reverse =
    owner && lastWriteOff && plan.status !== 'archived'
      ? `<section class="card" aria-label="The last write-off">
<p>${money(-lastWriteOff.amount, plan.currency)} written off ${when(visit, lastWriteOff.occurredAt)}${
          lastWriteOff.refs.reason ? `: ${esc(lastWriteOff.refs.reason)}` : ''
        }. Nothing has moved since, so it can still be reversed.</p>
${formStart(visit, `${planHref(plan.id)}/write-off/reverse`, { className: 'inline', label: 'Reverse the last write-off' })}<button type="submit" class="secondary">Reverse the last write-off</button></form>
</section>`
      : '';
  if (!quote && !writeOff && !reverse) return '';
  return `<h2>Settle or write off</h2>\n${quote}\n${writeOff}\n${reverse}`;
}
