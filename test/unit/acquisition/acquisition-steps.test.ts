/**
 * What an acquisition continues through its step queue and with which delay, and what a step does on
 * arrival; the step message's versioned shape.
 */
import {
  acquisitionStepBody,
  parseAcquisitionStep,
  type AcquisitionStep,
} from '../../../contract/acquisition-step';
import {
  continuationSteps,
  delaySecondsUntil,
  failedPasses,
  onStepReceipt,
} from '../../../lambda/core/acquisition/acquisition-steps';
import type { SourcePass } from '../../../lambda/core/acquisition/source-passes';

const NOW = Date.parse('2026-12-07T22:00:00.000Z');
const done = (sourceId: string, left = 0): SourcePass<{ leftForNextPass: number }> => ({
  sourceId,
  report: { leftForNextPass: left },
});
const throttled = (sourceId: string, waitMs: number): SourcePass<{ leftForNextPass: number }> => ({
  sourceId,
  error: 'throttled',
  throttledUntil: NOW + waitMs,
});

describe('the delay of a step', () => {
  it.each([
    [0, 0],
    [-5_000, 0],
    [1, 1],
    [1_000, 1],
    [1_001, 2],
    [899_000, 899],
    [900_000, 900],
    [901_000, 900],
    [3_600_000, 900],
  ])('a wait of %i ms is %i s (SQS allows at most 900)', (waitMs, seconds) => {
    expect(delaySecondsUntil(NOW + waitMs, NOW)).toBe(seconds);
  });
});

describe('the continuation steps of an invocation', () => {
  it('sends none when every source finished', () => {
    expect(continuationSteps('acme', [done('a'), done('b')], NOW)).toEqual([]);
  });

  it('continues at once a source left short of time and one not started; a failed one is not', () => {
    const passes = [
      done('finished'),
      done('left-runs', 2),
      { sourceId: 'not-started', skipped: true },
      { sourceId: 'broken', error: 'invalid_grant' },
    ];
    expect(continuationSteps('acme', passes, NOW)).toEqual([
      { step: { v: 1, tenant: 'acme', sourceId: 'left-runs', reason: 'time' }, delaySeconds: 0 },
      { step: { v: 1, tenant: 'acme', sourceId: 'not-started', reason: 'time' }, delaySeconds: 0 },
    ]);
    expect(failedPasses(passes).map((pass) => pass.sourceId)).toEqual(['broken']);
  });

  it('delays a throttled source to its notBefore, capped at 900 s, and keeps the full notBefore', () => {
    const passes = [throttled('t1', 1_000), throttled('t899', 899_000), throttled('t901', 901_000)];
    expect(continuationSteps('acme', passes, NOW)).toEqual([
      {
        step: {
          v: 1,
          tenant: 'acme',
          sourceId: 't1',
          reason: 'throttle',
          notBefore: '2026-12-07T22:00:01.000Z',
        },
        delaySeconds: 1,
      },
      {
        step: {
          v: 1,
          tenant: 'acme',
          sourceId: 't899',
          reason: 'throttle',
          notBefore: '2026-12-07T22:14:59.000Z',
        },
        delaySeconds: 899,
      },
      {
        step: {
          v: 1,
          tenant: 'acme',
          sourceId: 't901',
          reason: 'throttle',
          notBefore: '2026-12-07T22:15:01.000Z',
        },
        delaySeconds: 900,
      },
    ]);
    expect(failedPasses(passes)).toEqual([]);
  });
});

describe('a step on arrival', () => {
  const step = (notBefore?: string): AcquisitionStep => ({
    v: 1,
    tenant: 'acme',
    sourceId: 's',
    reason: notBefore ? 'throttle' : 'time',
    ...(notBefore ? { notBefore } : {}),
  });

  it('runs without notBefore, at it and after it', () => {
    expect(onStepReceipt(step(), NOW)).toEqual({ action: 'run' });
    expect(onStepReceipt(step('2026-12-07T22:00:00.000Z'), NOW)).toEqual({ action: 'run' });
    expect(onStepReceipt(step('2026-12-07T21:59:00.000Z'), NOW)).toEqual({ action: 'run' });
  });

  it('is delayed again when it arrives early: the rest of the wait, at most 900 s', () => {
    expect(onStepReceipt(step('2026-12-07T22:00:01.000Z'), NOW)).toEqual({
      action: 'delay',
      delaySeconds: 1,
    });
    expect(onStepReceipt(step('2026-12-07T22:15:01.000Z'), NOW)).toEqual({
      action: 'delay',
      delaySeconds: 900,
    });
    // 40 minutes: two more delays of 900 s, then the rest.
    expect(onStepReceipt(step('2026-12-07T22:40:00.000Z'), NOW + 1_800_000)).toEqual({
      action: 'delay',
      delaySeconds: 600,
    });
  });
});

describe('the step message', () => {
  it('reads back what is written', () => {
    const step: AcquisitionStep = {
      v: 1,
      tenant: 'acme',
      sourceId: 'acmecosts.blob.core.windows.net/exports/cost-exports/acme',
      reason: 'throttle',
      notBefore: '2026-12-07T22:15:01.000Z',
    };
    expect(parseAcquisitionStep(acquisitionStepBody(step))).toEqual(step);
  });

  it.each([
    ['not json', /not JSON/],
    ['{"v":2,"tenant":"acme","sourceId":"s","reason":"time"}', /version 2 is not 1/],
    ['{"v":1,"tenant":"","sourceId":"s","reason":"time"}', /tenant and sourceId/],
    ['{"v":1,"tenant":"acme","sourceId":"s","reason":"later"}', /reason "later"/],
    [
      '{"v":1,"tenant":"acme","sourceId":"s","reason":"throttle","notBefore":"soon"}',
      /notBefore must be an ISO-8601 instant/,
    ],
  ])('refuses %s', (body, message) => {
    expect(() => parseAcquisitionStep(body)).toThrow(message);
  });
});
