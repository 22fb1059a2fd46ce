import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { dateInWords, quietHoursEnd } from '../../src/lib/calendar.js';
import { renderReminder } from '../../src/modules/reminders/reminders.templates.js';
import { latestDueStage, stageStart } from '../../src/modules/schedules/obligations.remind-stages.js';

const ZONES = [
  'Africa/Lagos',
  'America/New_York',
  'Pacific/Auckland',
  'Asia/Kolkata',
  'Europe/London',
  'UTC',
];

describe('quiet hours', () => {
  test('from 21:00 until 08:00 local time nothing goes out; it waits until 08:00', () => {
    assert.equal(quietHoursEnd('2028-01-20T19:59:59.000Z', 'Africa/Lagos'), null);
    assert.equal(quietHoursEnd('2028-01-20T20:00:00.000Z', 'Africa/Lagos'), '2028-01-21T07:00:00.000Z');
    assert.equal(quietHoursEnd('2028-01-20T06:59:59.000Z', 'Africa/Lagos'), '2028-01-20T07:00:00.000Z');
    assert.equal(quietHoursEnd('2028-01-20T07:00:00.000Z', 'Africa/Lagos'), null);
    // New York, the night summer time begins (2028-03-12): 08:00 EDT is 12:00Z.
    assert.equal(quietHoursEnd('2028-03-12T06:30:00.000Z', 'America/New_York'), '2028-03-12T12:00:00.000Z');
  });

  test('property: outside quiet hours nothing waits; inside, it waits until the next 08:00 local, less than 12 hours away', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom(...ZONES),
        (ms, zone) => {
          const instant = new Date(ms).toISOString();
          const hour = Temporal.Instant.from(instant).toZonedDateTimeISO(zone).hour;
          const end = quietHoursEnd(instant, zone);
          if (hour >= 8 && hour < 21) return end === null;
          if (end === null) return false;
          const local = Temporal.Instant.from(end).toZonedDateTimeISO(zone);
          return (
            local.hour === 8 && local.minute === 0 && end > instant && Date.parse(end) - ms < 12 * 3_600_000
          );
        },
      ),
    );
  });
});

describe('reminder stages', () => {
  test('each stage falls due at the start of its day in the zone: 3 days before, the due day, 3 and 7 days after', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => stageStart('2028-01-25', i, 'Africa/Lagos')),
      [
        '2028-01-21T23:00:00.000Z',
        '2028-01-24T23:00:00.000Z',
        '2028-01-27T23:00:00.000Z',
        '2028-01-31T23:00:00.000Z',
        null,
      ],
    );
    assert.equal(latestDueStage('2028-01-25', 0, 'Africa/Lagos', '2028-01-21T22:59:59.999Z'), null);
    assert.equal(latestDueStage('2028-01-25', 0, 'Africa/Lagos', '2028-01-21T23:00:00.000Z'), 0);
    assert.equal(latestDueStage('2028-01-25', 0, 'Africa/Lagos', '2028-01-29T00:00:00.000Z'), 2);
    assert.equal(latestDueStage('2028-01-25', 3, 'Africa/Lagos', '2029-01-01T00:00:00.000Z'), 3);
  });
});

describe('reminder templates', () => {
  const facts = {
    customerName: 'Adaeze Okafor',
    business: 'Mama Put Stores',
    amount: '₦1,000.00',
    dueDate: dateInWords('2028-01-25'),
    planTitle: 'Generator, 3 months',
    payBy: 'Pay here: https://pay.example.com/checkout/chk_1',
  };

  test('an e-mail greets the customer, says where the money stands for its stage, how to pay, and who asks', () => {
    const mail = renderReminder('due_day', 'email', facts);
    assert.equal(mail.subject, 'Mama Put Stores: ₦1,000.00 for Generator, 3 months is due today');
    assert.equal(
      mail.text,
      'Hello Adaeze Okafor,\n\n₦1,000.00 for Generator, 3 months is due today, 25 Jan 2028.\n\nPay here: https://pay.example.com/checkout/chk_1\n\nThank you,\nMama Put Stores\n',
    );
  });

  test('SMS and WhatsApp carry the same facts in one line; overdue stages say how late', () => {
    const sms = renderReminder('7_days_after', 'sms', { ...facts, payBy: null });
    assert.equal(sms.subject, null);
    assert.equal(
      sms.text,
      'Mama Put Stores: Hello Adaeze Okafor, ₦1,000.00 for Generator, 3 months was due on 25 Jan 2028 and is now 7 days late. Please pay as soon as you can, or tell us if something is wrong.',
    );
    assert.match(renderReminder('3_days_before', 'whatsapp', facts).text, /is due in 3 days, on 25 Jan 2028/);
    assert.match(renderReminder(null, 'sms', { ...facts, dueDate: null }).text, /is still owed/);
  });

  test('a reminder sent while a promise to pay is open mentions it, as agreed', () => {
    const sms = renderReminder(null, 'sms', { ...facts, payBy: null, promised: '₦20,000.00 by Fri 4 Dec' });
    assert.equal(
      sms.text,
      'Mama Put Stores: Hello Adaeze Okafor, ₦1,000.00 for Generator, 3 months is due on 25 Jan 2028. Thank you for your promise: as agreed, ₦20,000.00 by Fri 4 Dec.',
    );
  });
});
