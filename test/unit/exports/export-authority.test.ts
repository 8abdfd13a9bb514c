import { authoritativeSource, compareSourceRanks } from '../../../lambda/core/export-authority';
import {
  statementRows,
  type CurrentSnapshot,
  type PeriodInfo,
  type SnapshotPart,
} from '../../../lambda/core/ledger-total';

const FOCUS = 'bucket/acme/focus';
const SECOND = 'bucket/acme/second';

const part = (source: string, executionId: string, accountId: string, total: string) =>
  ({
    tenant: 'acme',
    accountId,
    period: '2026-11',
    source,
    executionId,
    totals: { USD: { total, charges: 1 } },
  }) satisfies SnapshotPart;

const pointer = (
  source: string,
  executionId: string,
  rank: Pick<CurrentSnapshot, 'precedence' | 'firstSwitchedAt'> = {},
): CurrentSnapshot => ({ tenant: 'acme', source, period: '2026-11', executionId, ...rank });

const usd = (accountId: string, total: string, charges: number, status = 'open') => ({
  tenant: 'acme',
  accountId,
  period: '2026-11',
  currency: 'USD',
  total,
  charges,
  status,
});

describe('authoritativeSource (which export of an account counts)', () => {
  it('the source that became current first, whatever switched since', () => {
    expect(
      authoritativeSource([
        { source: 'a', firstSwitchedAt: '2026-11-03T00:00:00.000Z' },
        { source: 'b', firstSwitchedAt: '2026-11-02T00:00:00.000Z' },
      ]),
    ).toBe('b');
  });

  it('a declared precedence overrides the first switch; undeclared sources rank after declared ones', () => {
    expect(
      authoritativeSource([
        { source: 'a', firstSwitchedAt: '2026-11-01T00:00:00.000Z' },
        { source: 'b', precedence: 1, firstSwitchedAt: '2026-11-05T00:00:00.000Z' },
        { source: 'c', precedence: 0, firstSwitchedAt: '2026-11-09T00:00:00.000Z' },
      ]),
    ).toBe('c');
    expect(
      authoritativeSource([
        { source: 'a', firstSwitchedAt: '2026-11-01T00:00:00.000Z' },
        { source: 'b', precedence: 3, firstSwitchedAt: '2026-11-05T00:00:00.000Z' },
      ]),
    ).toBe('b');
  });

  it('a pointer switched before firstSwitchedAt existed was there first; ties go by name', () => {
    expect(
      authoritativeSource([
        { source: 'a', firstSwitchedAt: '2026-11-01T00:00:00.000Z' },
        { source: 'z' },
      ]),
    ).toBe('z');
    expect(authoritativeSource([{ source: 'b' }, { source: 'a' }])).toBe('a');
    expect(compareSourceRanks({ source: 'a' }, { source: 'a' })).toBe(0);
    expect(authoritativeSource([])).toBeUndefined();
  });
});

describe('statementRows with two exports of the same accounts', () => {
  it('counts the authoritative one only and shows the other as shadowed (the reported 41,842.83)', () => {
    const rows = statementRows(
      [],
      [part(FOCUS, 'f-1', '111', '25797.74'), part(SECOND, 's-1', '111', '16045.09')],
      [
        pointer(FOCUS, 'f-1', { firstSwitchedAt: '2026-11-02T00:00:00.000Z' }),
        pointer(SECOND, 's-1', { firstSwitchedAt: '2026-11-03T00:00:00.000Z' }),
      ],
    );
    expect(rows).toEqual([
      {
        ...usd('111', '25797.74', 1),
        shadowed: [
          {
            source: SECOND,
            executionId: 's-1',
            total: '16045.09',
            charges: 1,
            authoritative: FOCUS,
          },
        ],
      },
    ]);
  });

  it('a declared precedence overrides the first switch', () => {
    const rows = statementRows(
      [],
      [part(FOCUS, 'f-1', '111', '25797.74'), part(SECOND, 's-1', '111', '16045.09')],
      [
        pointer(FOCUS, 'f-1', { firstSwitchedAt: '2026-11-02T00:00:00.000Z' }),
        pointer(SECOND, 's-1', { precedence: 0, firstSwitchedAt: '2026-11-03T00:00:00.000Z' }),
      ],
    );
    expect(rows.map(({ total, shadowed }) => ({ total, shadowed }))).toEqual([
      {
        total: '16045.09',
        shadowed: [
          {
            source: FOCUS,
            executionId: 'f-1',
            total: '25797.74',
            charges: 1,
            authoritative: SECOND,
          },
        ],
      },
    ]);
  });

  it('decides per account: A covers 1,2 and B covers 2,3 → 2 from the authoritative one only', () => {
    const rows = statementRows(
      [],
      [
        part(FOCUS, 'f-1', '1', '10'),
        part(FOCUS, 'f-1', '2', '20'),
        part(SECOND, 's-1', '2', '21'),
        part(SECOND, 's-1', '3', '30'),
      ],
      [
        pointer(FOCUS, 'f-1', { firstSwitchedAt: '2026-11-02T00:00:00.000Z' }),
        pointer(SECOND, 's-1', { firstSwitchedAt: '2026-11-01T00:00:00.000Z' }),
      ],
    );
    expect(rows).toEqual([
      usd('1', '10', 1),
      {
        ...usd('2', '21', 1),
        shadowed: [
          { source: FOCUS, executionId: 'f-1', total: '20', charges: 1, authoritative: SECOND },
        ],
      },
      usd('3', '30', 1),
    ]);
  });

  it('stream totals stay additive next to the authoritative snapshot', () => {
    const rows = statementRows(
      [{ ...usd('111', '5', 2), status: undefined }],
      [part(FOCUS, 'f-1', '111', '10'), part(SECOND, 's-1', '111', '11')],
      [pointer(FOCUS, 'f-1'), pointer(SECOND, 's-1')],
    );
    expect(rows.map(({ total, charges }) => ({ total, charges }))).toEqual([
      { total: '15', charges: 3 },
    ]);
  });

  it('a closed period counts the authoritative one of its pins, whatever is current now', () => {
    const closed: PeriodInfo = {
      tenant: 'acme',
      accountId: '111',
      period: '2026-11',
      state: 'closed',
      closedOnce: true,
      pinned: { [FOCUS]: 'f-1', [SECOND]: 's-1' },
    };
    const rows = statementRows(
      [],
      [
        part(FOCUS, 'f-1', '111', '25797.74'),
        part(FOCUS, 'f-2', '111', '26000'),
        part(SECOND, 's-1', '111', '16045.09'),
      ],
      [
        pointer(FOCUS, 'f-2', { firstSwitchedAt: '2026-11-02T00:00:00.000Z' }),
        pointer(SECOND, 's-1', { firstSwitchedAt: '2026-11-03T00:00:00.000Z' }),
      ],
      [closed],
    );
    expect(rows).toEqual([
      {
        ...usd('111', '25797.74', 1, 'closed'),
        shadowed: [
          {
            source: SECOND,
            executionId: 's-1',
            total: '16045.09',
            charges: 1,
            authoritative: FOCUS,
          },
        ],
      },
    ]);
  });

  it('a closed period keeps the authoritative source its first close recorded, whatever ranks say now', () => {
    const closed: PeriodInfo = {
      tenant: 'acme',
      accountId: '111',
      period: '2026-11',
      state: 'closed',
      closedOnce: true,
      pinned: { [FOCUS]: 'f-1', [SECOND]: 's-1' },
      authoritative: SECOND,
    };
    const rows = statementRows(
      [],
      [part(FOCUS, 'f-1', '111', '25797.74'), part(SECOND, 's-1', '111', '16045.09')],
      [pointer(FOCUS, 'f-1', { precedence: 0 }), pointer(SECOND, 's-1')],
      [closed],
    );
    expect(rows.map(({ total }) => total)).toEqual(['16045.09']);
  });

  it('a shadowed currency the authoritative export lacks is a zero row that lists it', () => {
    const rows = statementRows(
      [],
      [
        part(FOCUS, 'f-1', '111', '10'),
        { ...part(SECOND, 's-1', '111', '0'), totals: { EUR: { total: '9', charges: 1 } } },
      ],
      [pointer(FOCUS, 'f-1'), pointer(SECOND, 's-1')],
    );
    expect(rows).toEqual([
      {
        ...usd('111', '0', 0),
        currency: 'EUR',
        shadowed: [
          { source: SECOND, executionId: 's-1', total: '9', charges: 1, authoritative: FOCUS },
        ],
      },
      usd('111', '10', 1),
    ]);
  });
});
