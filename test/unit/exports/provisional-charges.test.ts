import {
  statementRows,
  supersededSource,
  type SnapshotPart,
  type SourceTotal,
  type StatementRow,
} from '../../../lambda/core/ledger-total';
import { decideCharge, type StoredCharge } from '../../../lambda/core/ledger-decision';
import { voidDelta } from '../../../lambda/core/period-actions';

/** The provisional rule: stream charges of the provider whose export counts are kept apart, never added. */

const ACCOUNT = '200000000011';

const stream = (
  currency: string,
  total: string,
  charges: number,
  sources?: SourceTotal[],
  accountId = ACCOUNT,
): StatementRow => ({
  tenant: 'acme',
  accountId,
  period: '2026-11',
  currency,
  total,
  charges,
  ...(sources ? { sources } : {}),
});

const part = (
  source: string,
  executionId: string,
  totals: SnapshotPart['totals'],
  supersedes?: string,
  accountId = ACCOUNT,
): SnapshotPart => ({
  tenant: 'acme',
  accountId,
  period: '2026-11',
  source,
  executionId,
  totals,
  ...(supersedes ? { supersedes } : {}),
});

const current = (source: string, executionId: string) => ({
  tenant: 'acme',
  source,
  period: '2026-11',
  executionId,
});

describe('statementRows with provisional stream charges', () => {
  it('leaves out the stream charges of the export provider: the total is the export', () => {
    const rows = statementRows(
      [stream('USD', '10.25', 3, [{ source: 'aws', total: '10.25', charges: 3 }])],
      [part('cur', 'e-1', { USD: { total: '10.40', charges: 4 } }, 'aws')],
      [current('cur', 'e-1')],
    );
    expect(rows).toEqual([
      {
        tenant: 'acme',
        accountId: ACCOUNT,
        period: '2026-11',
        currency: 'USD',
        total: '10.4',
        charges: 4,
        status: 'open',
        provisional: [{ source: 'aws', total: '10.25', charges: 3, supersededBy: 'cur' }],
      },
    ]);
  });

  it('keeps other sources and the unattributed part (older charges) added', () => {
    const [row] = statementRows(
      [
        // 1.00 of internal metering, 2.00 of aws, 0.50 written before per-source totals existed
        stream('USD', '3.5', 4, [
          { source: 'aws', total: '2', charges: 2 },
          { source: 'metering', total: '1', charges: 1 },
        ]),
      ],
      [part('cur', 'e-1', { USD: { total: '2.2', charges: 2 } }, 'aws')],
      [current('cur', 'e-1')],
    );
    expect(row).toMatchObject({ total: '3.7', charges: 4 });
    expect(row.provisional).toEqual([
      { source: 'aws', total: '2', charges: 2, supersededBy: 'cur' },
    ]);
  });

  it('adds everything when the snapshot supersedes nothing (additive provider, older snapshot)', () => {
    const [row] = statementRows(
      [stream('USD', '2', 2, [{ source: 'aws', total: '2', charges: 2 }])],
      [part('cur', 'e-1', { USD: { total: '2.2', charges: 2 } })],
      [current('cur', 'e-1')],
    );
    expect(row).toMatchObject({ total: '4.2', charges: 4 });
    expect(row.provisional).toBeUndefined();
  });

  it('supersedes nothing while no snapshot of the provider counts (not current, other account)', () => {
    const rows = statementRows(
      [stream('USD', '2', 2, [{ source: 'aws', total: '2', charges: 2 }])],
      [
        part('cur', 'e-1', { USD: { total: '5', charges: 1 } }, 'aws'),
        part('cur', 'e-2', { USD: { total: '7', charges: 1 } }, 'aws', '200000000099'),
      ],
      [current('cur', 'e-2')],
    );
    expect(rows.map((row) => [row.accountId, row.total, row.provisional])).toEqual([
      [ACCOUNT, '2', undefined],
      ['200000000099', '7', undefined],
    ]);
  });

  it('supersedes the provider in every currency of the account-period, sums shards per source', () => {
    const rows = statementRows(
      [
        stream('EUR', '3', 1, [{ source: 'aws', total: '3', charges: 1 }]),
        stream('USD', '1', 1, [{ source: 'aws', total: '1', charges: 1 }]),
        stream('USD', '2', 1, [{ source: 'aws', total: '2', charges: 1 }]),
      ],
      [part('cur', 'e-1', { USD: { total: '3.3', charges: 3 } }, 'aws')],
      [current('cur', 'e-1')],
    );
    expect(rows.map((row) => [row.currency, row.total, row.charges, row.provisional])).toEqual([
      ['EUR', '0', 0, [{ source: 'aws', total: '3', charges: 1, supersededBy: 'cur' }]],
      ['USD', '3.3', 3, [{ source: 'aws', total: '3', charges: 2, supersededBy: 'cur' }]],
    ]);
  });

  it('follows the authoritative export: a shadowed snapshot supersedes nothing', () => {
    const [row] = statementRows(
      [
        stream('USD', '3', 2, [
          { source: 'aws', total: '1', charges: 1 },
          { source: 'gcp', total: '2', charges: 1 },
        ]),
      ],
      [
        part('a-focus', 'f-1', { USD: { total: '1.1', charges: 1 } }, 'aws'),
        part('b-gcp', 'g-1', { USD: { total: '2.2', charges: 1 } }, 'gcp'),
      ],
      [current('a-focus', 'f-1'), current('b-gcp', 'g-1')],
    );
    // a-focus is authoritative (name order): only aws is provisional, gcp's stream stays.
    expect(row).toMatchObject({ total: '3.1', charges: 2 });
    expect(row.provisional).toEqual([
      { source: 'aws', total: '1', charges: 1, supersededBy: 'a-focus' },
    ]);
  });
});

describe('supersededSource (config additiveSources)', () => {
  it('supersedes the provider unless it is listed additive', () => {
    expect(supersededSource('aws', [])).toBe('aws');
    expect(supersededSource('aws', ['gcp'])).toBe('aws');
    expect(supersededSource('aws', ['aws'])).toBeUndefined();
    expect(supersededSource(undefined, [])).toBeUndefined();
  });
});

describe('per-source changes of a charge decision', () => {
  const incoming = {
    identity: { kind: 'line-item' as const, id: 'x', version: 2, digest: 'd' },
    contentHash: 'h2',
    amount: '5',
    currency: 'USD',
    source: 'aws',
  };
  const stored = (over: Partial<StoredCharge> = {}): StoredCharge => ({
    version: 1,
    contentHash: 'h1',
    amount: '3',
    currency: 'USD',
    ...over,
  });

  it('a new charge goes to its source entirely', () => {
    expect(decideCharge(incoming, undefined)).toEqual({
      outcome: 'applied',
      totals: [
        {
          currency: 'USD',
          delta: '5',
          charges: 1,
          bySource: { source: 'aws', delta: '5', charges: 1 },
        },
      ],
    });
  });

  it('a restatement moves its source by the delta when the old amount was attributed', () => {
    expect(decideCharge(incoming, stored({ attributed: true }))).toMatchObject({
      totals: [{ delta: '2', charges: 0, bySource: { source: 'aws', delta: '2', charges: 0 } }],
    });
  });

  it('a restatement of a charge written before per-source totals attributes the whole new amount', () => {
    expect(decideCharge(incoming, stored())).toMatchObject({
      totals: [{ delta: '2', charges: 0, bySource: { source: 'aws', delta: '5', charges: 1 } }],
    });
  });

  it('a currency move takes out of the source only what it holds', () => {
    const moved = { ...incoming, currency: 'EUR' };
    const [out, into] = (decideCharge(moved, stored()) as { totals: { bySource?: unknown }[] })
      .totals;
    expect(out.bySource).toBeUndefined();
    expect(into.bySource).toEqual({ source: 'aws', delta: '5', charges: 1 });
    expect(
      (decideCharge(moved, stored({ attributed: true })) as { totals: { bySource?: unknown }[] })
        .totals[0].bySource,
    ).toEqual({ source: 'aws', delta: '-3', charges: -1 });
  });

  it('a void takes the charge out of its source only when it was attributed', () => {
    const open = { kind: 'own' as const, period: '2026-11' };
    expect(
      voidDelta({ amount: '3', currency: 'USD', source: 'aws', attributed: true }, '2026-11', open)
        .bySource,
    ).toEqual({ source: 'aws', delta: '-3', charges: -1 });
    expect(
      voidDelta({ amount: '3', currency: 'USD', source: 'aws' }, '2026-11', open).bySource,
    ).toBeUndefined();
  });
});
