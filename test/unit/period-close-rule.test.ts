import { autoCloseCandidates, type ScannedPartition } from '../../lambda/core/auto-close';
import {
  closeRefusal,
  holdsBillingData,
  type PartitionItemKind,
} from '../../lambda/core/period-close-rule';

const at = (iso: string) => Date.parse(iso);
const request = (overrides: Partial<Parameters<typeof closeRefusal>[0]> = {}) => ({
  period: '2026-10',
  now: at('2026-11-01T00:00:00Z'),
  kinds: ['stream-total'] as PartitionItemKind[],
  closedBefore: false,
  force: false,
  ...overrides,
});

describe('which account-periods may be closed', () => {
  it('data of any kind: a stream total or an export snapshot; a PERIOD item alone is not data', () => {
    expect(holdsBillingData(['stream-total'])).toBe(true);
    expect(holdsBillingData(['export-snapshot'])).toBe(true);
    expect(holdsBillingData(['period-state', 'export-snapshot'])).toBe(true);
    expect(holdsBillingData(['period-state'])).toBe(false);
    expect(holdsBillingData([])).toBe(false);
  });

  it('a month that has not ended is refused, even forced; from its first instant after, it is not', () => {
    expect(closeRefusal(request({ period: '2099-01', force: true }))).toEqual({
      code: 'not-ended',
      reason:
        'has not ended: it ends at 2099-02-01T00:00:00.000Z (UTC) and can be closed from then on',
    });
    expect(closeRefusal(request({ now: at('2026-10-31T23:59:59.999Z') }))?.code).toBe('not-ended');
    expect(closeRefusal(request({ now: at('2026-11-01T00:00:00.000Z') }))).toBeUndefined();
    expect(
      closeRefusal(request({ period: '2026-12', now: at('2027-01-01T00:00:00Z') })),
    ).toBeUndefined();
  });

  it('an account-period with no data is refused unless forced or closed before', () => {
    expect(closeRefusal(request({ kinds: [] }))).toEqual({
      code: 'no-data',
      reason: 'holds no data (no stream total, no export snapshot of any source)',
    });
    expect(closeRefusal(request({ kinds: ['period-state'] }))?.code).toBe('no-data');
    expect(closeRefusal(request({ kinds: [], force: true }))).toBeUndefined();
    expect(closeRefusal(request({ kinds: ['period-state'], closedBefore: true }))).toBeUndefined();
    expect(closeRefusal(request({ kinds: ['export-snapshot'] }))).toBeUndefined();
  });
});

describe('auto-close candidates', () => {
  const scanned = (
    accountId: string,
    period: string,
    kinds: PartitionItemKind[],
    closeCount = 0,
  ): ScannedPartition => ({
    tenant: 'acme',
    accountId,
    period,
    kinds: new Set(kinds),
    state: 'open',
    closeCount,
  });

  it('every account-period up to the latest due one with data of any kind, export-only included', () => {
    expect(
      autoCloseCandidates(
        [
          scanned('stream', '2026-10', ['stream-total']),
          scanned('export-only', '2026-10', ['export-snapshot']),
          scanned('both', '2026-09', ['stream-total', 'export-snapshot', 'period-state'], 1),
          scanned('state-only', '2026-10', ['period-state'], 1),
          scanned('not-due', '2026-11', ['export-snapshot']),
        ],
        '2026-10',
      ),
    ).toEqual([
      { tenant: 'acme', accountId: 'stream', period: '2026-10', state: 'open', closeCount: 0 },
      { tenant: 'acme', accountId: 'export-only', period: '2026-10', state: 'open', closeCount: 0 },
      { tenant: 'acme', accountId: 'both', period: '2026-09', state: 'open', closeCount: 1 },
    ]);
  });
});
