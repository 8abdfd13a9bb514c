/**
 * What a scheduled acquisition continues through its step queue, and when (docs/azure-acquisition.md):
 * after the passes of an invocation, each source whose pass stopped short gets one step — at once
 * when time ran out, delayed to the provider's `notBefore` when it throttled us (SQS delays at most
 * 15 minutes: a longer wait is delayed again when the step arrives early). A source that finished or
 * failed gets none (a failure is retried by SQS or by the next schedule).
 */
import {
  ACQUISITION_STEP_VERSION,
  type AcquisitionStep,
  type AcquisitionStepReason,
} from '../../../contract/acquisition-step';
import type { SourcePass } from './source-passes';

/** SQS's largest `DelaySeconds`. */
export const SQS_MAX_DELAY_SECONDS = 900;

export interface StepToSend {
  step: AcquisitionStep;
  delaySeconds: number;
}

/** Whole seconds from `nowMs` to `notBeforeMs`, rounded up, at most SQS's 900; 0 when already past. */
export const delaySecondsUntil = (notBeforeMs: number, nowMs: number): number =>
  notBeforeMs <= nowMs
    ? 0
    : Math.min(SQS_MAX_DELAY_SECONDS, Math.ceil((notBeforeMs - nowMs) / 1000));

const stepOf = (
  tenant: string,
  sourceId: string,
  reason: AcquisitionStepReason,
  notBeforeMs?: number,
): AcquisitionStep => ({
  v: ACQUISITION_STEP_VERSION,
  tenant,
  sourceId,
  reason,
  ...(notBeforeMs === undefined ? {} : { notBefore: new Date(notBeforeMs).toISOString() }),
});

/** The steps to send after these passes of `tenant`'s sources, in the passes' order. */
export const continuationSteps = (
  tenant: string,
  passes: readonly SourcePass<{ leftForNextPass: number }>[],
  nowMs: number,
): StepToSend[] =>
  passes.flatMap((pass): StepToSend[] => {
    if (pass.throttledUntil !== undefined)
      return [
        {
          step: stepOf(tenant, pass.sourceId, 'throttle', pass.throttledUntil),
          delaySeconds: delaySecondsUntil(pass.throttledUntil, nowMs),
        },
      ];
    if (pass.error !== undefined) return [];
    if (pass.skipped === true || (pass.report?.leftForNextPass ?? 0) > 0)
      return [{ step: stepOf(tenant, pass.sourceId, 'time'), delaySeconds: 0 }];
    return [];
  });

/** Passes that failed for another reason than a throttle (a throttled pass continues as a step). */
export const failedPasses = <Report>(passes: readonly SourcePass<Report>[]): SourcePass<Report>[] =>
  passes.filter((pass) => pass.error !== undefined && pass.throttledUntil === undefined);

/**
 * A step taken from the queue: `run` its source's pass now, or, arrived before its `notBefore` (a
 * wait longer than one SQS delay), send it again `delaySeconds` later unchanged.
 */
export type StepReceipt = { action: 'run' } | { action: 'delay'; delaySeconds: number };

export const onStepReceipt = (step: AcquisitionStep, nowMs: number): StepReceipt => {
  if (step.notBefore === undefined) return { action: 'run' };
  const delaySeconds = delaySecondsUntil(Date.parse(step.notBefore), nowMs);
  return delaySeconds === 0 ? { action: 'run' } : { action: 'delay', delaySeconds };
};
