/**
 * A closed period and the data that arrives after it: once everything else settled, a line item (v1)
 * and an event of acme 200000000011 for 2026-10 are published; the period is closed; then two new
 * charges of 2026-10, the line item's v2 (a late restatement) and a replay of the event (a late
 * duplicate) arrive. Roll-forward books the new charges and the restatement's difference in 2026-11
 * as corrections of 2026-10; reject dead-letters them; the duplicate changes nothing either way.
 *
 * It draws from its own random stream, so the rest of the sample does not move.
 */
import { COST_STREAM } from '../../contract/streams';
import { Rng } from './random';
import { nextMonth } from './calendar';
import type { ChargeEffect, SampleClose, SampleClosing, SampleMessage } from './sample';
import { amountText } from './spelling';
import type { SampleLatePolicy, TruthBuilder } from './truth';

export const LATE_CLOSE: SampleClose = {
  tenant: 'acme',
  accountId: '200000000011',
  period: '2026-10',
  reason: 'October invoice issued (local sample)',
};

interface Charge {
  identity: string;
  effect: ChargeEffect;
  message: SampleMessage;
}

const chargeOf = (
  rng: Rng,
  fields: { eventId: string } | { lineItemId: string; version: number },
  day: number,
  note: string,
  amount = amountText(rng, 0.01, 90, 4),
): Charge => {
  const { tenant, accountId, period } = LATE_CLOSE;
  const id = 'eventId' in fields ? `event:${fields.eventId}` : `line:${fields.lineItemId}`;
  return {
    identity: `late:${tenant}:${accountId}:${id}`,
    effect: { tenant, accountId, period, currency: 'USD', amount, source: 'aws' },
    message: {
      topic: COST_STREAM,
      message: JSON.stringify({
        tenant,
        source: 'aws',
        ...fields,
        accountId,
        chargePeriodStart: `${period}-${String(day).padStart(2, '0')}T10:00:00Z`,
        chargeCategory: 'usage',
        service: 'AmazonEC2',
        amount,
        currency: 'USD',
      }),
      note,
    },
  };
};

export const lateCharges = (
  seed: number,
  truth: TruthBuilder,
  policy: SampleLatePolicy = 'roll-forward',
): SampleClosing => {
  const rng = new Rng((seed ^ 0x4c415445) >>> 0);
  const lineItem = 'li-late-restated-2026-10';
  const v1 = chargeOf(rng, { lineItemId: lineItem, version: 1 }, 28, 'line item v1 (before close)');
  const event = chargeOf(rng, { eventId: 'evt-before-close' }, 29, 'event (before close)');
  for (const charge of [v1, event]) truth.book(charge.identity, charge.effect);
  truth.close(LATE_CLOSE);

  const late = [
    chargeOf(rng, { eventId: 'evt-late-1' }, 30, 'late charge (period closed)'),
    chargeOf(rng, { eventId: 'evt-late-2' }, 31, 'late charge (period closed)'),
    chargeOf(rng, { lineItemId: lineItem, version: 2 }, 28, 'late restatement v2 (period closed)'),
  ];
  const next = nextMonth(LATE_CLOSE.period);
  for (const charge of [...late, event])
    truth.bookLate(charge.identity, charge.effect, policy, next);
  return {
    before: [v1.message, event.message],
    close: LATE_CLOSE,
    after: [
      ...late.map((charge) => charge.message),
      {
        ...event.message,
        deduplicationId: `late-replay-${rng.uuid()}`,
        note: 'late duplicate of an event booked before the close',
      },
    ],
  };
};
