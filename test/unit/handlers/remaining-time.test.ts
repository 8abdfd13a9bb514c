import { jitteredBackoff } from '../../../lambda/core/backoff';
import { RemainingTime } from '../../../lambda/handlers/remaining-time';

describe('RemainingTime: the running invocation bounds the stores’ back-off', () => {
  it('reads the context of the invocation it was last told, and knows no limit without one', () => {
    const remaining = new RemainingTime();
    expect(remaining.ms()).toBe(Number.POSITIVE_INFINITY);
    remaining.use({ getRemainingTimeInMillis: () => 4_000 });
    expect(remaining.ms()).toBe(4_000);
    remaining.use({ getRemainingTimeInMillis: () => 700 });
    expect(remaining.ms()).toBe(700);
    remaining.use(undefined);
    expect(remaining.ms()).toBe(Number.POSITIVE_INFINITY);
  });

  it('a back-off built once per container pauses within the current invocation only', async () => {
    const remaining = new RemainingTime();
    const pauses: number[] = [];
    const backoff = jitteredBackoff({
      baseMs: 1_000,
      capMs: 10_000,
      remainingMs: remaining.ms,
      reserveMs: 1_000,
      random: () => 0.999_999,
      sleep: async (ms) => void pauses.push(ms),
    });
    await backoff(3); // no invocation known: 1 s · 2^3
    remaining.use({ getRemainingTimeInMillis: () => 2_500 });
    await backoff(3); // 1.5 s left after the reserve
    remaining.use({ getRemainingTimeInMillis: () => 900 });
    await backoff(3); // nothing left: no pause
    expect(pauses.map(Math.round)).toEqual([8_000, 1_500]);
  });
});
