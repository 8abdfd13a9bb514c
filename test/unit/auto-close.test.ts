import {
  autoCloseReason,
  closableFrom,
  isDue,
  latestDuePeriod,
  periodEnd,
  planAutoClose,
  type AutoCloseCandidate,
} from '../../lambda/core/auto-close';

const at = (iso: string) => Date.parse(iso);

describe('auto-close: which periods are due', () => {
  it('a period ends at the first instant of the next month (UTC), December into January', () => {
    expect(new Date(periodEnd('2026-10')).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(new Date(periodEnd('2026-12')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(new Date(closableFrom('2026-02', 5)).toISOString()).toBe('2026-03-06T00:00:00.000Z');
    expect(() => periodEnd('2026-13')).toThrow(RangeError);
  });

  it('is due exactly afterDays whole days after the end, not a millisecond before', () => {
    expect(isDue('2026-10', at('2026-11-05T23:59:59.999Z'), 5)).toBe(false);
    expect(isDue('2026-10', at('2026-11-06T00:00:00.000Z'), 5)).toBe(true);
    expect(isDue('2026-11', at('2026-11-20T00:00:00.000Z'), 1)).toBe(false);
  });

  it('the latest due period agrees with isDue over 150 days and several delays', () => {
    const months = ['2025-11', '2025-12', '2026-01', '2026-02', '2026-03', '2026-04'];
    for (const days of [1, 3, 28, 31, 90])
      for (let day = 0; day < 150; day++) {
        const now = at('2026-01-01T12:00:00Z') + day * 86_400_000;
        const latest = latestDuePeriod(now, days);
        for (const month of months)
          expect([month, isDue(month, now, days)]).toEqual([month, month <= latest]);
      }
  });

  it('plans the never-closed due periods oldest first; reopened ones are left to the operator', () => {
    const open = { state: 'open', closeCount: 0 } as const;
    const candidates: AutoCloseCandidate[] = [
      { tenant: 'globex', accountId: '2', period: '2026-10', ...open },
      { tenant: 'acme', accountId: '1', period: '2026-11', ...open },
      { tenant: 'acme', accountId: '1', period: '2026-10', ...open },
      { tenant: 'acme', accountId: '3', period: '2026-09', state: 'open', closeCount: 2 },
      { tenant: 'acme', accountId: '4', period: '2026-09', state: 'closed', closeCount: 1 },
      { tenant: 'acme', accountId: '1', period: '2026-12', ...open },
    ];
    const plan = planAutoClose(candidates, at('2026-12-10T00:00:00Z'), 5);
    expect(plan.due).toEqual([
      { tenant: 'acme', accountId: '1', period: '2026-10' },
      { tenant: 'globex', accountId: '2', period: '2026-10' },
      { tenant: 'acme', accountId: '1', period: '2026-11' },
    ]);
    expect(plan.reopened).toEqual([{ tenant: 'acme', accountId: '3', period: '2026-09' }]);
  });

  it('the recorded reason names the delay and the end of the period', () => {
    expect(autoCloseReason('2026-10', 5)).toBe(
      'auto-close: 5 day(s) after the period ended (2026-11-01T00:00:00.000Z)',
    );
  });
});
