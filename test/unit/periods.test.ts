import { TransientError } from '../../lambda/core/errors';
import {
  Bookings,
  bookingTarget,
  isPeriod,
  MAX_ROLL_FORWARD_MONTHS,
  nextPeriod,
} from '../../lambda/core/periods';
import type { PeriodState } from '../../lambda/core/ports';

const closedSet =
  (...closed: string[]) =>
  async (period: string): Promise<PeriodState> =>
    closed.includes(period) ? 'closed' : 'open';

describe('period arithmetic', () => {
  it('the month after, across a year end', () => {
    expect(nextPeriod('2026-10')).toBe('2026-11');
    expect(nextPeriod('2026-12')).toBe('2027-01');
    expect(nextPeriod('0999-12')).toBe('1000-01');
  });

  it('accepts only yyyy-mm', () => {
    expect(isPeriod('2026-01')).toBe(true);
    for (const text of ['2026-13', '2026-00', '2026-1', '26-01', '2026-01-01']) {
      expect(isPeriod(text)).toBe(false);
    }
    expect(() => nextPeriod('2026-13')).toThrow('not a yyyy-mm period');
  });
});

describe('bookingTarget (the late-charge policy)', () => {
  it('an open period books its own effects', async () => {
    expect(await bookingTarget('2026-10', 'reject', closedSet())).toEqual({
      kind: 'own',
      period: '2026-10',
    });
  });

  it('roll-forward: the earliest open period after a closed one, skipping closed ones', async () => {
    expect(
      await bookingTarget('2026-11', 'roll-forward', closedSet('2026-11', '2026-12', '2027-02')),
    ).toEqual({ kind: 'rolled', period: '2027-01' });
  });

  it('reject: a closed period refuses, whatever is open after it', async () => {
    expect(await bookingTarget('2026-11', 'reject', closedSet('2026-11'))).toEqual({
      kind: 'rejected',
      period: '2026-11',
    });
  });

  it('gives up (transient) after a run of closed months', async () => {
    await expect(bookingTarget('2026-01', 'roll-forward', async () => 'closed')).rejects.toThrow(
      TransientError,
    );
    let asked = 0;
    await bookingTarget('2026-01', 'roll-forward', async () =>
      ++asked > MAX_ROLL_FORWARD_MONTHS ? 'open' : 'closed',
    );
    expect(asked).toBe(MAX_ROLL_FORWARD_MONTHS + 1);
  });
});

describe('Bookings (one invocation)', () => {
  const key = (period: string) => ({ tenant: 'acme', accountId: '1', period });

  it('assumes its own period open without asking (the commit checks it), asks about later ones once closed', async () => {
    const asked: string[] = [];
    const bookings = new Bookings('roll-forward', async ({ period }) => {
      asked.push(period);
      return period === '2026-11' ? 'closed' : 'open';
    });
    expect(await bookings.target(key('2026-10'))).toEqual({ kind: 'own', period: '2026-10' });
    expect(asked).toEqual([]);

    bookings.markClosed(key('2026-10'));
    expect(await bookings.target(key('2026-10'))).toEqual({ kind: 'rolled', period: '2026-12' });
    expect(await bookings.target(key('2026-10'))).toEqual({ kind: 'rolled', period: '2026-12' });
    // November was learned closed on the first question; December is asked each time (it may close).
    expect(asked).toEqual(['2026-11', '2026-12', '2026-12']);
  });

  it('keeps tenants and accounts apart', async () => {
    const bookings = new Bookings('reject');
    bookings.markClosed(key('2026-10'));
    expect(bookings.isKnownClosed({ ...key('2026-10'), accountId: '2' })).toBe(false);
    expect(await bookings.target(key('2026-10'))).toEqual({ kind: 'rejected', period: '2026-10' });
  });

  it('keeps a late charge provisional only in a period known closed whose export supersedes its source; asks once per period', async () => {
    let asked = 0;
    const bookings = new Bookings('reject', undefined, () => {
      asked += 1;
      return Promise.resolve({ provider: 'aws', supersededBy: 'exports/acme/focus' });
    });
    // Not known closed: the commit's own condition decides first, nothing is asked.
    expect(await bookings.keepsProvisional(key('2026-10'), 'aws')).toBe(false);
    expect(asked).toBe(0);
    bookings.markClosed(key('2026-10'));
    expect(await bookings.keepsProvisional(key('2026-10'), 'aws')).toBe(true);
    expect(await bookings.keepsProvisional(key('2026-10'), 'metering')).toBe(false);
    expect(asked).toBe(1);
    // Found open again (reopened): ordinary booking.
    bookings.markOpen(key('2026-10'));
    expect(await bookings.keepsProvisional(key('2026-10'), 'aws')).toBe(false);
    // Without the port, never.
    const plain = new Bookings('roll-forward');
    plain.markClosed(key('2026-10'));
    expect(await plain.keepsProvisional(key('2026-10'), 'aws')).toBe(false);
  });

  it('asks again after a failed read of the supersession', async () => {
    let calls = 0;
    const bookings = new Bookings('roll-forward', undefined, () => {
      calls += 1;
      return calls === 1
        ? Promise.reject(new Error('throttled'))
        : Promise.resolve({ provider: 'aws', supersededBy: 'x' });
    });
    bookings.markClosed(key('2026-10'));
    await expect(bookings.keepsProvisional(key('2026-10'), 'aws')).rejects.toThrow('throttled');
    expect(await bookings.keepsProvisional(key('2026-10'), 'aws')).toBe(true);
  });
});
