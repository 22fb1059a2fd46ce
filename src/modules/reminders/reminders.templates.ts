import type { Channel } from '../../ports/messages.js';
import type { ReminderStage } from '../schedules/index.js';

/** What a reminder's template needs, already in the form people read. */
export interface ReminderFacts {
  customerName: string;
  business: string;
  /** What is owed, formatted for its currency ("₦1,500.00"); null when the reminder names no plan or obligation. */
  amount: string | null;
  /** The due date in words ("31 Jan 2027"); null when there is none. */
  dueDate: string | null;
  planTitle: string | null;
  /** How to pay: a checkout link, a virtual account, or a consent page; null when there is nothing to add. */
  payBy: string | null;
  /** An open promise to pay, as agreed: "₦20,000.00 by Fri 4 Dec"; null when there is none. */
  promised?: string | null;
}

export interface ReminderText {
  /** E-mail only. */
  subject: string | null;
  text: string;
}

function what(facts: ReminderFacts): string {
  const amount = facts.amount ?? 'your payment';
  return facts.planTitle ? `${amount} for ${facts.planTitle}` : amount;
}

/** The sentence that says where the money stands, for each stage (null: a reminder asked through the API). */
function situation(stage: ReminderStage | null, facts: ReminderFacts): string {
  const due = facts.dueDate;
  if (facts.amount === null && facts.planTitle === null)
    return `this is a reminder about your account with ${facts.business}.`;
  switch (stage) {
    case '3_days_before':
      return `${what(facts)} is due in 3 days${due ? `, on ${due}` : ''}.`;
    case 'due_day':
      return `${what(facts)} is due today${due ? `, ${due}` : ''}.`;
    case '3_days_after':
      return `${what(facts)} was due${due ? ` on ${due}` : ''} and is now 3 days late.`;
    case '7_days_after':
      return `${what(facts)} was due${due ? ` on ${due}` : ''} and is now 7 days late. Please pay as soon as you can, or tell us if something is wrong.`;
    default:
      return `${what(facts)} ${due ? `is due on ${due}` : 'is still owed'}.`;
  }
}

function subjectOf(stage: ReminderStage | null, facts: ReminderFacts): string {
  const about = what(facts);
  if (stage === '3_days_after' || stage === '7_days_after') return `${facts.business}: ${about} is overdue`;
  if (stage === 'due_day') return `${facts.business}: ${about} is due today`;
  return `${facts.business}: ${about}${facts.dueDate ? ` due ${facts.dueDate}` : ''}`;
}

/**
 * The text of a reminder, per stage and channel: an e-mail with a subject and a greeting, a short message for
 * SMS and WhatsApp. Every figure comes in already formatted.
 */
export function renderReminder(
  stage: ReminderStage | null,
  channel: Channel,
  facts: ReminderFacts,
): ReminderText {
  const agreed = facts.promised ? ` Thank you for your promise: as agreed, ${facts.promised}.` : '';
  const body = `${situation(stage, facts)}${agreed}`;
  const pay = facts.payBy ? ` ${facts.payBy}` : '';
  if (channel === 'email') {
    return {
      subject: subjectOf(stage, facts),
      text: `Hello ${facts.customerName},\n\n${body.charAt(0).toUpperCase()}${body.slice(1)}${pay ? `\n\n${pay.trim()}` : ''}\n\nThank you,\n${facts.business}\n`,
    };
  }
  return { subject: null, text: `${facts.business}: Hello ${facts.customerName}, ${body}${pay}` };
}
