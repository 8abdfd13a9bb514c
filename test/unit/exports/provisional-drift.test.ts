import {
  DEFAULT_DRIFT_THRESHOLD,
  accountDrift,
  hasStreamCharges,
  summarizeDrifts,
} from '../../../lambda/core/exports/provisional-drift';
import {
  PROVISIONAL_DRIFT_KIND,
  provisionalDriftKey,
  provisionalDriftMessage,
  type DriftRecord,
} from '../../../lambda/core/exports/provisional-drift-message';

const onePercent = { ratio: '0.01', floor: '1' };
const usd = (total: string, charges = 1) => ({ USD: { total, charges } });

describe('accountDrift: the stream against the export that superseded it', () => {
  it('records stream, export, stream − export and the ratio to the export, exactly', () => {
    expect(accountDrift('111', usd('10.00', 2), usd('10.4', 3), onePercent)).toEqual({
      accountId: '111',
      above: false,
      currencies: [
        {
          currency: 'USD',
          stream: '10',
          streamCharges: 2,
          export: '10.4',
          exportCharges: 3,
          difference: '-0.4',
          ratio: '0.0384615385',
          above: false,
        },
      ],
    });
  });

  it('is not above at exactly the threshold, above one unit past it (ratio and floor, whichever is larger)', () => {
    // 1 % of 1000 is 10 (over the floor of 1): 10 is not above, 10.000000000000000001 is.
    expect(accountDrift('a', usd('1010'), usd('1000'), onePercent).above).toBe(false);
    expect(accountDrift('a', usd('1010.000000000000000001'), usd('1000'), onePercent).above).toBe(
      true,
    );
    // 1 % of 50 is 0.5, under the floor of 1: the floor decides.
    expect(accountDrift('a', usd('51'), usd('50'), onePercent).above).toBe(false);
    expect(accountDrift('a', usd('51.01'), usd('50'), onePercent).above).toBe(true);
  });

  it('a currency only one side has counts as 0 on the other: above when past the floor', () => {
    const drift = accountDrift(
      'a',
      { USD: { total: '100', charges: 4 } },
      { USD: { total: '100', charges: 4 }, EUR: { total: '5', charges: 1 } },
      onePercent,
    );
    expect(drift.currencies.map((c) => [c.currency, c.stream, c.export, c.above])).toEqual([
      ['EUR', '0', '5', true],
      ['USD', '100', '100', false],
    ]);
    expect(drift.above).toBe(true);
    const streamOnly = accountDrift('a', usd('0.5'), {}, onePercent);
    expect(streamOnly.currencies[0]).toMatchObject({
      export: '0',
      difference: '0.5',
      above: false,
    });
    expect(streamOnly.currencies[0].ratio).toBeUndefined();
  });

  it('defaults to 1 % with a floor of 1', () => {
    expect(DEFAULT_DRIFT_THRESHOLD).toEqual({ ratio: '0.01', floor: '1' });
  });

  it('compares only stream charges that exist', () => {
    expect(hasStreamCharges({})).toBe(false);
    expect(hasStreamCharges({ USD: { total: '0', charges: 0 } })).toBe(false);
    expect(hasStreamCharges({ USD: { total: '0', charges: 2 } })).toBe(true);
    expect(hasStreamCharges({ USD: { total: '-3', charges: 0 } })).toBe(true);
  });

  it('summarizes a switch: accounts, above, notified, the largest |difference| and ratio', () => {
    const drifts = [
      accountDrift('a', usd('90'), usd('100'), onePercent),
      accountDrift('b', usd('10.2'), usd('10'), onePercent),
      accountDrift('c', usd('3'), {}, onePercent),
    ];
    expect(summarizeDrifts(drifts, 1)).toEqual({
      accounts: 3,
      above: 2,
      notified: 1,
      largestDifference: '10',
      largestRatio: '0.1',
    });
    expect(summarizeDrifts([], 0)).toEqual({
      accounts: 0,
      above: 0,
      notified: 0,
      largestDifference: '0',
    });
  });
});

describe('the provisional-drift notification', () => {
  const record: DriftRecord = {
    ...accountDrift('200000000031', usd('7', 1), usd('10.4', 2), onePercent),
    tenant: 'acme',
    period: '2026-10',
    source: 'exports/acme/focus',
    executionId: 'e1',
    switchedAt: '2026-11-02T06:00:00.000Z',
    provider: 'aws',
    threshold: onePercent,
  };

  it('names the account-period, both figures and the difference, with kind provisional-drift', () => {
    const message = provisionalDriftMessage(record);
    expect(message.subject).toBe('Stream vs export drift: acme 2026-10 200000000031');
    expect(message.attributes).toEqual({
      kind: PROVISIONAL_DRIFT_KIND,
      tenant: 'acme',
      account: '200000000031',
    });
    expect(message.body).toContain(
      'USD: stream 7 (1 charges), export 10.4 (2 rows), stream − export -3.40 (32.6923 %), above the threshold',
    );
    expect(message.body).toContain('export source: exports/acme/focus');
  });

  it('has one key per switch and account-period', () => {
    expect(provisionalDriftKey(record)).toBe(
      'provisional-drift:acme#exports/acme/focus#2026-10#e1#200000000031',
    );
    expect(provisionalDriftKey({ ...record, executionId: 'e2' })).not.toBe(
      provisionalDriftKey(record),
    );
  });
});
