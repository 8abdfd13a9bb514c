import { statementRows, type SnapshotPart } from '../../../lambda/core/ledger-total';

const stream = (currency: string, total: string, charges: number, accountId = '200000000011') => ({
  tenant: 'acme',
  accountId,
  period: '2026-11',
  currency,
  total,
  charges,
});

const part = (
  source: string,
  executionId: string,
  totals: SnapshotPart['totals'],
  accountId = '200000000011',
): SnapshotPart => ({
  tenant: 'acme',
  accountId,
  period: '2026-11',
  source,
  executionId,
  totals,
});

const current = (source: string, executionId: string) => ({
  tenant: 'acme',
  source,
  period: '2026-11',
  executionId,
});

describe('statementRows (the ledger total rule)', () => {
  it('adds the current snapshot of each source to the stream total, exactly', () => {
    expect(
      statementRows(
        [stream('USD', '0.1', 1)],
        [
          part('aws', 'e-2', { USD: { total: '0.2', charges: 2 } }),
          part('gcp', 'g-1', { USD: { total: '0.0000000001', charges: 1 } }),
        ],
        [current('aws', 'e-2'), current('gcp', 'g-1')],
      ),
    ).toEqual([stream('USD', '0.3000000001', 4)]);
  });

  it('counts only the current execution of a source: 10.00 + 10.00 restated to 12.50 + 10.00 is 22.50 over 2', () => {
    expect(
      statementRows(
        [],
        [
          part('aws', 'e-1', { USD: { total: '20', charges: 2 } }),
          part('aws', 'e-2', { USD: { total: '22.5', charges: 2 } }),
        ],
        [current('aws', 'e-2')],
      ),
    ).toEqual([stream('USD', '22.5', 2)]);
  });

  it('ignores snapshots of a source with no current execution, and of other periods or tenants', () => {
    const otherPeriod = {
      ...part('aws', 'e-1', { USD: { total: '1', charges: 1 } }),
      period: '2026-10',
    };
    expect(
      statementRows(
        [stream('USD', '3', 1)],
        [
          part('aws', 'e-1', { USD: { total: '1', charges: 1 } }),
          otherPeriod,
          { ...part('gcp', 'g-1', { USD: { total: '9', charges: 1 } }), tenant: 'globex' },
        ],
        [{ ...current('gcp', 'g-1') }],
      ),
    ).toEqual([stream('USD', '3', 1)]);
  });

  it('a snapshot-only account or currency is a row of its own; rows are sorted', () => {
    expect(
      statementRows(
        [stream('USD', '1', 1)],
        [
          part('aws', 'e-1', { EUR: { total: '2', charges: 1 }, USD: { total: '3', charges: 1 } }),
          part('aws', 'e-1', { USD: { total: '4', charges: 1 } }, '200000000010'),
        ],
        [current('aws', 'e-1')],
      ),
    ).toEqual([
      stream('USD', '4', 1, '200000000010'),
      stream('EUR', '2', 1),
      stream('USD', '4', 2),
    ]);
  });
});
