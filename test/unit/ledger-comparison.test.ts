import { compareLedgers } from '../../lambda/core/ledger-comparison';

const row = (accountId: string, currency: string, total: string, charges: number) => ({
  accountId,
  currency,
  total,
  charges,
});

describe('comparing a rebuilt ledger with the live one', () => {
  it('equal decimals are equal however they are written', () => {
    expect(compareLedgers([row('a', 'USD', '12.50', 3)], [row('a', 'USD', '12.5', 3)])).toEqual({
      equal: 1,
      differences: [],
    });
  });

  it('lists a different total, a different count and a total one side lacks, in account order', () => {
    const comparison = compareLedgers(
      [row('b', 'USD', '1', 1), row('a', 'USD', '2', 2), row('a', 'EUR', '3', 1)],
      [
        row('a', 'USD', '2', 3),
        row('b', 'USD', '1.000000000000000001', 1),
        row('c', 'USD', '4', 1),
      ],
    );
    expect(comparison.equal).toBe(0);
    expect(comparison.differences).toEqual([
      {
        accountId: 'a',
        currency: 'EUR',
        live: { total: '3', charges: 1 },
        rebuilt: { total: '0', charges: 0 },
      },
      {
        accountId: 'a',
        currency: 'USD',
        live: { total: '2', charges: 2 },
        rebuilt: { total: '2', charges: 3 },
      },
      {
        accountId: 'b',
        currency: 'USD',
        live: { total: '1', charges: 1 },
        rebuilt: { total: '1.000000000000000001', charges: 1 },
      },
      {
        accountId: 'c',
        currency: 'USD',
        live: { total: '0', charges: 0 },
        rebuilt: { total: '4', charges: 1 },
      },
    ]);
  });
});
