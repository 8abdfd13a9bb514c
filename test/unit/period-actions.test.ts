import { PeriodError } from '../../lambda/core/errors';
import {
  checkPeriodKey,
  checkReason,
  correctionsOf,
  pinsAtFirstClose,
  voidDelta,
} from '../../lambda/core/period-actions';

const key = { tenant: 'acme', accountId: '111', period: '2026-10' };

describe('pinsAtFirstClose', () => {
  it('pins the current execution of each source with a snapshot, checks each such pointer once', () => {
    const pins = pinsAtFirstClose(
      key,
      ['aws', 'aws', 'gcp'],
      [
        {
          tenant: 'acme',
          period: '2026-10',
          source: 'aws',
          executionId: 'e1',
          firstSwitchedAt: '2026-11-01T00:00:00Z',
        },
        { tenant: 'acme', period: '2026-09', source: 'gcp', executionId: 'old' },
      ],
    );
    expect(pins).toEqual({
      pinned: { aws: 'e1' },
      authoritative: 'aws',
      checks: [{ source: 'aws', executionId: 'e1' }, { source: 'gcp' }],
    });
  });

  it('pins nothing when no source is current: every snapshot source must stay without a pointer', () => {
    expect(pinsAtFirstClose(key, ['aws'], [])).toEqual({ pinned: {}, checks: [{ source: 'aws' }] });
  });
});

describe('voidDelta', () => {
  it('takes the exact amount off its own period', () => {
    expect(
      voidDelta({ amount: '0.1', currency: 'USD' }, '2026-10', { kind: 'own', period: '2026-10' }),
    ).toEqual({
      currency: 'USD',
      delta: '-0.1',
      charges: -1,
    });
  });

  it('booked in a later period, it is a correction of its own', () => {
    expect(
      voidDelta({ amount: '-2.50', currency: 'EUR' }, '2026-10', {
        kind: 'rolled',
        period: '2026-11',
      }),
    ).toEqual({
      currency: 'EUR',
      delta: '2.5',
      charges: -1,
      correctionOf: '2026-10',
    });
  });
});

describe('period requests', () => {
  it('refuses a malformed period, a missing account and an empty reason', () => {
    expect(() => checkPeriodKey({ ...key, period: '2026-13' })).toThrow(PeriodError);
    expect(() => checkPeriodKey({ ...key, accountId: '' })).toThrow(
      'tenant and account are required',
    );
    expect(() => checkReason('  ', 'reopen a period')).toThrow(
      'a reason is required to reopen a period',
    );
    expect(checkReason(' audit ', 'reopen a period')).toBe('audit');
  });
});

describe('correctionsOf', () => {
  it('keeps the corrections of the period from later rows', () => {
    const row = {
      tenant: 'acme',
      accountId: '111',
      period: '2026-11',
      currency: 'USD',
      total: '5',
      charges: 2,
      corrections: [
        { of: '2026-10', total: '-1', charges: -1 },
        { of: '2026-09', total: '3', charges: 1 },
      ],
    };
    expect(correctionsOf('2026-10', [row])).toEqual([
      { bookedIn: '2026-11', currency: 'USD', total: '-1', charges: -1 },
    ]);
  });
});
