import { addDecimals } from '../../../lambda/core/decimal';
import { ValidationError } from '../../../lambda/core/errors';
import type { ChargeTotals } from '../../../lambda/core/exports/charge-totals';
import {
  changeNotifications,
  diffSnapshots,
  signedAmount,
  snapshotTotals,
} from '../../../lambda/core/exports/snapshot';

const totals = (
  account: string,
  currency: string,
  services: Record<string, [string, number]>,
): ChargeTotals => {
  let total = '0';
  let charges = 0;
  const byService: Record<string, string> = {};
  for (const [service, [amount, rows]] of Object.entries(services)) {
    byService[service] = amount;
    total = addDecimals(total, amount);
    charges += rows;
  }
  return { [account]: { [currency]: { total, charges, services: byService } } };
};

describe('snapshotTotals', () => {
  it('sums chunk totals exactly (0.1 + 0.2 is 0.3; 18 fraction digits kept)', () => {
    const sum = snapshotTotals([
      { a: { USD: { total: '0.1', charges: 1, services: { EC2: '0.1' } } } },
      { a: { USD: { total: '0.2', charges: 1, services: { EC2: '0.2' } } } },
      {
        a: {
          USD: {
            total: '0.000000000000000001',
            charges: 1,
            services: { S3: '0.000000000000000001' },
          },
        },
      },
      { b: { EUR: { total: '5', charges: 2, services: { EC2: '5' } } } },
    ]);
    expect(sum).toEqual({
      a: {
        USD: {
          total: '0.300000000000000001',
          charges: 3,
          services: { EC2: '0.3', S3: '0.000000000000000001' },
        },
      },
      b: { EUR: { total: '5', charges: 2, services: { EC2: '5' } } },
    });
  });

  it('treats "__proto__" as an ordinary account id', () => {
    const sum = snapshotTotals([
      JSON.parse('{"__proto__": {"USD": {"total": "1", "charges": 1, "services": {}}}}'),
    ]);
    expect(Object.keys(sum)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).USD).toBeUndefined();
  });
});

describe('diffSnapshots and changeNotifications', () => {
  const previous = {
    executionId: 'e-1',
    totals: {
      ...totals('200000000013', 'USD', { EC2: ['1000', 10], S3: ['100', 1], Lambda: ['5', 1] }),
      '200000000014': { USD: { total: '7', charges: 1, services: { EC2: '7' } } },
    },
  };
  const current = {
    executionId: 'e-2',
    totals: {
      ...totals('200000000013', 'USD', {
        EC2: ['1390.02', 11],
        S3: ['122.16', 1],
        Lambda: ['5', 1],
      }),
      '200000000014': { USD: { total: '7', charges: 1, services: { EC2: '7' } } },
      '200000000015': { EUR: { total: '0.5', charges: 1, services: { S3: '0.5' } } },
    },
  };

  it('lists old, new and delta per account × currency × service, only where something changed', () => {
    expect(diffSnapshots(current, previous)).toEqual({
      executionId: 'e-2',
      previousExecutionId: 'e-1',
      accounts: [
        {
          accountId: '200000000013',
          currency: 'USD',
          old: '1105',
          new: '1517.18',
          delta: '412.18',
          oldCharges: 12,
          newCharges: 13,
          services: [
            { service: 'EC2', old: '1000', new: '1390.02', delta: '390.02' },
            { service: 'S3', old: '100', new: '122.16', delta: '22.16' },
          ],
        },
        {
          accountId: '200000000015',
          currency: 'EUR',
          old: '0',
          new: '0.5',
          delta: '0.5',
          oldCharges: 0,
          newCharges: 1,
          services: [{ service: 'S3', old: '0', new: '0.5', delta: '0.5' }],
        },
      ],
    });
  });

  it('an account that disappears from the new export goes to 0', () => {
    const diff = diffSnapshots({ executionId: 'e-3', totals: {} }, previous);
    expect(diff.accounts.map((a) => [a.accountId, a.old, a.new, a.delta])).toEqual([
      ['200000000013', '1105', '0', '-1105'],
      ['200000000014', '7', '0', '-7'],
    ]);
  });

  it('notifies the account-currencies whose |change| reaches the threshold, in readable text', () => {
    const diff = diffSnapshots(current, previous);
    expect(
      changeNotifications(diff, { tenant: 'acme', period: '2026-11', threshold: '100' }),
    ).toEqual([
      {
        accountId: '200000000013',
        currency: 'USD',
        delta: '412.18',
        text: 'acme 2026-11, account 200000000013: +412.18 USD since the previous export; EC2 +390.02, S3 +22.16',
      },
    ]);
    expect(
      changeNotifications(diff, { tenant: 'acme', period: '2026-11', threshold: '0.5' }),
    ).toHaveLength(2);
    expect(
      changeNotifications(diff, { tenant: 'acme', period: '2026-11', threshold: '412.19' }),
    ).toEqual([]);
    const down = diffSnapshots({ executionId: 'e-3', totals: {} }, previous);
    expect(
      changeNotifications(down, { tenant: 'acme', period: '2026-11', threshold: '7' }).map(
        (n) => n.text,
      ),
    ).toEqual([
      'acme 2026-11, account 200000000013: -1105.00 USD since the previous export; EC2 -1000.00, S3 -100.00, Lambda -5.00',
      'acme 2026-11, account 200000000014: -7.00 USD since the previous export; EC2 -7.00',
    ]);
  });

  it('the first snapshot of a period notifies nothing; a negative or malformed threshold is refused', () => {
    const first = diffSnapshots(current);
    expect(first.previousExecutionId).toBeUndefined();
    expect(
      changeNotifications(first, { tenant: 'acme', period: '2026-11', threshold: '0' }),
    ).toEqual([]);
    expect(() =>
      changeNotifications(first, { tenant: 'acme', period: '2026-11', threshold: '-1' }),
    ).toThrow(ValidationError);
    expect(() =>
      changeNotifications(first, { tenant: 'acme', period: '2026-11', threshold: 'ten' }),
    ).toThrow(ValidationError);
  });

  it('prints amounts exactly, signed, with at least two fraction digits', () => {
    expect(['412.18', '-0.000123', '0', '5', '1e-20'].map(signedAmount)).toEqual([
      '+412.18',
      '-0.000123',
      '+0.00',
      '+5.00',
      '+0.00000000000000000001',
    ]);
  });
});
