import { generateSample } from '../../../local/scenarios/generator';
import { LATE_CLOSE, lateCharges } from '../../../local/scenarios/late-charges';
import { sampleSteps } from '../../../local/phases/steps';
import { TruthBuilder } from '../../../local/scenarios/truth';

const effect = (period: string, amount: string) => ({
  tenant: 'acme',
  accountId: 'a',
  period,
  currency: 'USD',
  amount,
});

describe('the truth of a closed period', () => {
  it('roll-forward: a late charge and a restatement difference count in the next month as corrections; a duplicate nothing', () => {
    const truth = new TruthBuilder();
    truth.book('x', effect('2026-10', '10'));
    truth.book('y', effect('2026-11', '1'));
    truth.close({ tenant: 'acme', accountId: 'a', period: '2026-10' });
    truth.bookLate('late', effect('2026-10', '2.5'), 'roll-forward', '2026-11');
    truth.bookLate('x', effect('2026-10', '12'), 'roll-forward', '2026-11');
    truth.bookLate('x', effect('2026-10', '12'), 'roll-forward', '2026-11');
    truth.bookLate('x', effect('2026-10', '11'), 'roll-forward', '2026-11');
    const { ledger, deadLetters } = truth.build();
    expect(ledger).toEqual([
      {
        tenant: 'acme',
        accountId: 'a',
        period: '2026-10',
        currency: 'USD',
        total: '10',
        charges: 1,
        status: 'closed',
      },
      {
        tenant: 'acme',
        accountId: 'a',
        period: '2026-11',
        currency: 'USD',
        total: '4.5',
        charges: 2,
        status: 'open',
        corrections: [{ of: '2026-10', total: '3.5', charges: 1 }],
      },
    ]);
    expect(deadLetters['cost-events']).toBe(0);
  });

  it('reject: the late charge and restatement are dead letters, the duplicate is not; nothing moves', () => {
    const truth = new TruthBuilder();
    truth.book('x', effect('2026-10', '10'));
    truth.close({ tenant: 'acme', accountId: 'a', period: '2026-10' });
    truth.bookLate('late', effect('2026-10', '2.5'), 'reject', '2026-11');
    truth.bookLate('x', effect('2026-10', '12'), 'reject', '2026-11');
    truth.bookLate('x', effect('2026-10', '10.0'), 'reject', '2026-11');
    const { ledger, deadLetters } = truth.build();
    expect(ledger).toEqual([
      expect.objectContaining({ period: '2026-10', total: '10', charges: 1, status: 'closed' }),
    ]);
    expect(deadLetters['cost-events']).toBe(2);
  });

  it('the sample closes acme 200000000011 2026-10 at the end, after the rest settled, then publishes the late data', () => {
    const sample = generateSample({ seed: 42, chargesPerAccountMonth: 3 });
    expect(sample.closing?.close).toEqual(LATE_CLOSE);
    expect(sample.closing?.before).toHaveLength(2);
    expect(sample.closing?.after.map((m) => m.note)).toEqual([
      'late charge (period closed)',
      'late charge (period closed)',
      'late restatement v2 (period closed)',
      'late duplicate of an event booked before the close',
    ]);
    const steps = sampleSteps(sample.messages, [], sample.closing);
    expect(steps.slice(-3).map((step) => step.kind)).toEqual(['messages', 'period', 'messages']);
    const october = sample.truth.ledger.find(
      (t) => t.accountId === LATE_CLOSE.accountId && t.period === '2026-10',
    );
    const november = sample.truth.ledger.find(
      (t) => t.accountId === LATE_CLOSE.accountId && t.period === '2026-11',
    );
    expect(october?.status).toBe('closed');
    expect(november?.corrections).toEqual([
      { of: '2026-10', total: expect.any(String), charges: 2 },
    ]);
    const rejected = generateSample({
      seed: 42,
      chargesPerAccountMonth: 3,
      lateChargePolicy: 'reject',
    });
    expect(rejected.truth.deadLetters['cost-events']).toBe(
      sample.truth.deadLetters['cost-events'] + 3,
    );
  });

  it('draws from its own random stream: the rest of the sample does not move', () => {
    const truth = new TruthBuilder();
    const a = lateCharges(42, truth);
    const b = lateCharges(42, new TruthBuilder());
    expect(a).toEqual(b);
    expect(generateSample({ seed: 42, chargesPerAccountMonth: 3 }).messages).toEqual(
      generateSample({ seed: 42, chargesPerAccountMonth: 3, lateChargePolicy: 'reject' }).messages,
    );
  });
});
