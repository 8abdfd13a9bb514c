import {
  statementRows,
  type PeriodInfo,
  type SnapshotPart,
} from '../../../lambda/core/ledger-total';

const stream = (currency: string, total: string, charges: number, accountId = '200000000011') => ({
  tenant: 'acme',
  accountId,
  period: '2026-11',
  currency,
  total,
  charges,
});

/** A statement row of an open period, as statementRows returns it. */
const row = (currency: string, total: string, charges: number, accountId = '200000000011') => ({
  ...stream(currency, total, charges, accountId),
  status: 'open',
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
  it('adds the current snapshot of each source to the stream total of its account, exactly', () => {
    expect(
      statementRows(
        [stream('USD', '0.1', 1), stream('USD', '0.1', 1, '200000000012')],
        [
          part('aws', 'e-2', { USD: { total: '0.2', charges: 2 } }),
          part('gcp', 'g-1', { USD: { total: '0.0000000001', charges: 1 } }, '200000000012'),
        ],
        [current('aws', 'e-2'), current('gcp', 'g-1')],
      ),
    ).toEqual([row('USD', '0.3', 3), row('USD', '0.1000000001', 2, '200000000012')]);
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
    ).toEqual([row('USD', '22.5', 2)]);
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
    ).toEqual([row('USD', '3', 1)]);
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
    ).toEqual([row('USD', '4', 1, '200000000010'), row('EUR', '2', 1), row('USD', '4', 2)]);
  });
});

describe('statementRows with total shards and billing periods', () => {
  const closed = (pinned: Record<string, string> = {}): PeriodInfo => ({
    tenant: 'acme',
    accountId: '200000000011',
    period: '2026-11',
    state: 'closed',
    closedOnce: true,
    pinned,
  });

  it('sums the shards and the per-currency items of earlier versions, exactly', () => {
    expect(
      statementRows(
        [
          stream('USD', '0.1', 1),
          stream('USD', '0.2', 1),
          stream('USD', '-0.3', -1),
          stream('EUR', '1', 1),
        ],
        [],
        [],
      ),
    ).toEqual([row('EUR', '1', 1), row('USD', '0', 1)]);
  });

  it('a closed period counts the pinned execution of a source, whatever is current now', () => {
    expect(
      statementRows(
        [stream('USD', '1', 1)],
        [
          part('aws', 'e-1', { USD: { total: '10', charges: 1 } }),
          part('aws', 'e-2', { USD: { total: '12', charges: 1 } }),
        ],
        [current('aws', 'e-2')],
        [closed({ aws: 'e-1' })],
      ),
    ).toEqual([{ ...row('USD', '11', 2), status: 'closed' }]);
  });

  it('a period closed with no snapshot of a source never counts it, even reopened, whatever is current', () => {
    const parts = [
      part('aws', 'e-1', { USD: { total: '10', charges: 1 } }),
      part('gcp', 'g-1', { USD: { total: '3', charges: 2 } }),
    ];
    const pointers = [current('aws', 'e-1'), current('gcp', 'g-1')];
    expect(
      statementRows([stream('USD', '1', 1)], parts, pointers, [closed({ aws: 'e-1' })]),
    ).toEqual([{ ...row('USD', '11', 2), status: 'closed' }]);
    expect(
      statementRows([stream('USD', '1', 1)], parts, pointers, [
        { ...closed({ aws: 'e-1' }), state: 'open' },
      ]),
    ).toEqual([{ ...row('USD', '11', 2), status: 'open' }]);
    expect(
      statementRows([stream('USD', '1', 1)], parts, pointers, [
        { ...closed(), state: 'open', closedOnce: false },
      ]),
    ).toEqual([
      {
        ...row('USD', '11', 2),
        status: 'open',
        shadowed: [
          { source: 'gcp', executionId: 'g-1', total: '3', charges: 2, authoritative: 'aws' },
        ],
      },
    ]);
  });

  it('lists the corrections inside a total by the period they correct, merged across shards', () => {
    const late = (total: string, charges: number, of: string) => ({
      ...stream('USD', total, charges),
      corrections: [{ of, total, charges }],
    });
    expect(
      statementRows(
        [
          stream('USD', '5', 1),
          late('2', 1, '2026-10'),
          late('0.5', 0, '2026-10'),
          late('1', 1, '2026-09'),
        ],
        [],
        [],
      ),
    ).toEqual([
      {
        ...row('USD', '8.5', 3),
        corrections: [
          { of: '2026-09', total: '1', charges: 1 },
          { of: '2026-10', total: '2.5', charges: 1 },
        ],
      },
    ]);
  });
});
