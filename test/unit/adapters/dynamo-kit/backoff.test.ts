import { jitteredBackoff, pauseCeilingMs } from '../../../../lambda/adapters/dynamo-kit/backoff';

describe('jitteredBackoff', () => {
  it('grows as base · 2^attempt up to the cap', () => {
    const options = { baseMs: 20, capMs: 1000 };
    expect([0, 1, 2, 5, 6, 10].map((attempt) => pauseCeilingMs(attempt, options))).toEqual([
      20, 40, 80, 640, 1000, 1000,
    ]);
  });

  it('never pauses past the invocation remaining time less the reserve', () => {
    const options = { baseMs: 20, capMs: 10_000, remainingMs: () => 1_500, reserveMs: 1_000 };
    expect(pauseCeilingMs(10, options)).toBe(500);
    expect(pauseCeilingMs(10, { ...options, remainingMs: () => 200 })).toBe(0);
  });

  it('sleeps a jittered share of the ceiling, and not at all when none is left', async () => {
    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
    };
    await jitteredBackoff({ baseMs: 10, capMs: 1000, random: () => 0.5, sleep })(3);
    await jitteredBackoff({
      baseMs: 10,
      capMs: 1000,
      random: () => 0.5,
      sleep,
      remainingMs: () => 0,
    })(3);
    expect(slept).toEqual([40]);
  });
});
