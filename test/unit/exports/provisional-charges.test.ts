import {
  countedStreamOf,
  statementRows,
  supersededSource,
  supersessionOf,
  type SnapshotPart,
  type SourceTotal,
  type StatementRow,
} from '../../../lambda/core/ledger-total';
import {
  asProvisional,
  chargeAfter,
  decideCharge,
  mayBeProvisional,
  type StoredCharge,
  type TotalChange,
} from '../../../lambda/core/ledger-decision';
import { provisionalText } from '../../../cli/commands/ledger';
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

describe('late provisional charges of a closed period', () => {
  const closedInfo = (pinned: Record<string, string>, authoritative?: string) => ({
    tenant: 'acme',
    accountId: ACCOUNT,
    period: '2026-11',
    state: 'closed' as const,
    closedOnce: true,
    pinned,
    ...(authoritative ? { authoritative } : {}),
  });

  it('supersessionOf: the pinned snapshot, else (nothing pinned) the current one that corrects the close', () => {
    const pinnedPart = part('cur', 'e-1', { USD: { total: '10', charges: 1 } }, 'aws');
    const later = part('cur', 'e-2', { USD: { total: '9', charges: 1 } }, 'aws');
    expect(
      supersessionOf([pinnedPart, later], [current('cur', 'e-2')], closedInfo({ cur: 'e-1' })),
    ).toEqual({ provider: 'aws', supersededBy: 'cur' });
    // Closed with nothing pinned: the export that arrived after the close.
    expect(supersessionOf([later], [current('cur', 'e-2')], closedInfo({}))).toEqual({
      provider: 'aws',
      supersededBy: 'cur',
    });
    // Pinned elsewhere (another source counted at close, superseding nothing): no supersession.
    expect(
      supersessionOf(
        [part('other', 'o-1', { USD: { total: '1', charges: 1 } }), later],
        [current('cur', 'e-2'), current('other', 'o-1')],
        closedInfo({ other: 'o-1' }, 'other'),
      ),
    ).toBeUndefined();
    // An additive provider's snapshot supersedes nothing.
    expect(
      supersessionOf(
        [part('cur', 'e-1', { USD: { total: '1', charges: 1 } })],
        [current('cur', 'e-1')],
      ),
    ).toBeUndefined();
  });

  it('statementRows lists late provisional charges under their source, never in the total', () => {
    const late = { lateProvisional: [{ source: 'aws', total: '4', charges: 1 }] };
    const rows = statementRows(
      [{ ...stream('USD', '7', 1, [{ source: 'aws', total: '7', charges: 1 }]), ...late }],
      [part('cur', 'e-1', { USD: { total: '10.4', charges: 2 } }, 'aws')],
      [current('cur', 'e-1')],
      [closedInfo({ cur: 'e-1' }, 'cur')],
    );
    expect(rows).toMatchObject([
      {
        total: '10.4',
        charges: 2,
        status: 'closed',
        provisional: [
          {
            source: 'aws',
            total: '11',
            charges: 2,
            supersededBy: 'cur',
            late: { total: '4', charges: 1 },
          },
        ],
      },
    ]);
    // What the closed statement counted of aws: nothing (the late part was never in `total@aws`).
    expect(
      countedStreamOf(
        [stream('USD', '7', 1, [{ source: 'aws', total: '7', charges: 1 }])],
        rows,
        'aws',
      ),
    ).toEqual({});
  });

  it('closed with no pin: the late part is listed, the counted stream stays what the close counted', () => {
    const streamRow = stream('USD', '10', 2, [{ source: 'aws', total: '10', charges: 2 }]);
    const rows = statementRows(
      [{ ...streamRow, lateProvisional: [{ source: 'aws', total: '4', charges: 1 }] }],
      [part('cur', 'e-1', { USD: { total: '10.4', charges: 2 } }, 'aws')],
      [current('cur', 'e-1')],
      [closedInfo({})],
    );
    expect(rows).toMatchObject([
      {
        total: '10',
        charges: 2,
        provisional: [
          {
            source: 'aws',
            total: '4',
            charges: 1,
            supersededBy: 'cur',
            late: { total: '4', charges: 1 },
          },
        ],
      },
    ]);
    expect(countedStreamOf([streamRow], rows, 'aws')).toEqual({ USD: '10' });
  });

  it('a charge kept provisional: only new ones or restatements of provisional ones; restated into a total, its old amount leaves the provisional totals', () => {
    const incoming = {
      identity: { kind: 'line-item' as const, id: 'x', version: 2, digest: 'd' },
      contentHash: 'h2',
      amount: '5',
      currency: 'USD',
      source: 'aws',
    };
    const provisional: StoredCharge = {
      version: 1,
      contentHash: 'h1',
      amount: '3',
      currency: 'USD',
      provisional: true,
    };
    expect(mayBeProvisional(undefined)).toBe(true);
    expect(mayBeProvisional(provisional)).toBe(true);
    expect(mayBeProvisional({ ...provisional, provisional: undefined, attributed: true })).toBe(
      false,
    );
    const restated = decideCharge(incoming, provisional) as { totals: TotalChange[] };
    expect(restated.totals).toEqual([
      {
        currency: 'USD',
        delta: '-3',
        charges: -1,
        provisional: true,
        bySource: { source: 'aws', delta: '-3', charges: -1 },
      },
      {
        currency: 'USD',
        delta: '5',
        charges: 1,
        bySource: { source: 'aws', delta: '5', charges: 1 },
      },
    ]);
    expect(asProvisional(restated.totals).every((change) => change.provisional)).toBe(true);
    expect(chargeAfter(incoming, true)).toEqual({
      version: 2,
      contentHash: 'h2',
      amount: '5',
      currency: 'USD',
      provisional: true,
    });
  });
});

describe('billing-dedup ledger: provisional lines', () => {
  it('says how much of a source arrived after the close', () => {
    const row: StatementRow = {
      ...stream('USD', '10.4', 2),
      provisional: [
        {
          source: 'aws',
          total: '11',
          charges: 2,
          supersededBy: 'cur',
          late: { total: '4', charges: 1 },
        },
      ],
    };
    expect(provisionalText(row)).toEqual([
      'USD 11 (2 charges) of source aws, of which 4 (1 charge) arrived after the close; the export cur counts instead',
    ]);
  });
});
