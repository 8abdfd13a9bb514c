/**
 * The two ways a scheduled acquisition function runs (`handlers/acquisition-handler.ts`), over ports:
 *
 * - a **schedule** event `{tenant}`: one pass per source of the tenant, then a continuation step for
 *   each source that stopped short (`acquisition-steps.ts`);
 * - a **step** from the provider's step queue: one pass over that source from its cursor, then its own
 *   continuation, if any. A step that arrives before its `notBefore` is sent again, delayed. A pass
 *   that fails (not a throttle) fails the record, so SQS delivers it again; on the queue's last receive
 *   it goes to the DLQ with the error as its `rejection-reason` instead (as an export task does), and a
 *   body that is no step goes there at once.
 *
 * Every step is idempotent under redelivery: a pass resumes from its cursor and skips what it wrote.
 */
import { parseAcquisitionStep, type AcquisitionStep } from '../../../contract/acquisition-step';
import type { DeadLetterPort, SqsRecordInput } from '../ports';
import {
  continuationSteps,
  failedPasses,
  onStepReceipt,
  type StepToSend,
} from './acquisition-steps';
import {
  runSourcePasses,
  sourcesOfTenant,
  type PortsFactory,
  type SourcePass,
  type SourcePassProvider,
} from './source-passes';

/** The provider's step queue. */
export interface StepQueuePort {
  send(steps: readonly StepToSend[]): Promise<void>;
}

export interface StepRunOptions<Source extends { tenant: string }, Ports, Report> {
  provider: SourcePassProvider<Source, Ports, Report>;
  sources: readonly Source[];
  portsFor: PortsFactory<Source, Ports>;
  exportBucket: string;
  keepGoing: () => boolean;
  now: () => number;
  /** Absent (no step queue configured): nothing is continued, the next schedule resumes. */
  queue?: StepQueuePort;
  /** The step queue's DLQ and its redrive `maxReceiveCount`. */
  deadLetters?: DeadLetterPort;
  maxReceiveCount?: number;
}

export interface PassesRun<Report> {
  passes: SourcePass<Report>[];
  /** The continuation steps sent. */
  steps: StepToSend[];
  /** Failed passes the caller must report (throttled ones are not, once continued as a step). */
  failed: SourcePass<Report>[];
}

type Leftover = { leftForNextPass: number };

const passAndContinue = async <Source extends { tenant: string }, Ports, Report extends Leftover>(
  options: StepRunOptions<Source, Ports, Report>,
  tenant: string,
  sources: readonly Source[],
): Promise<PassesRun<Report>> => {
  const passes = await runSourcePasses(options.provider, sources, options.portsFor, {
    exportBucket: options.exportBucket,
    keepGoing: options.keepGoing,
  });
  if (options.queue === undefined)
    return { passes, steps: [], failed: passes.filter((pass) => pass.error !== undefined) };
  const steps = continuationSteps(tenant, passes, options.now());
  if (steps.length > 0) await options.queue.send(steps);
  return { passes, steps, failed: failedPasses(passes) };
};

/** A schedule's event: every source of the tenant (a tenant with none is refused). */
export const runTenantPasses = <Source extends { tenant: string }, Ports, Report extends Leftover>(
  options: StepRunOptions<Source, Ports, Report>,
  tenant: string | undefined,
): Promise<PassesRun<Report>> =>
  passAndContinue(
    options,
    tenant ?? '',
    sourcesOfTenant(options.provider, options.sources, tenant),
  );

export type StepOutcome<Report> =
  | ({ outcome: 'ran'; step: AcquisitionStep } & PassesRun<Report>)
  | { outcome: 'delayed'; step: AcquisitionStep; delaySeconds: number }
  /** The step's source is no longer configured: nothing to do. */
  | { outcome: 'dropped'; step: AcquisitionStep; reason: string }
  | { outcome: 'dead-lettered'; reason: string }
  /** The record fails: SQS delivers it again. */
  | { outcome: 'failed'; step: AcquisitionStep; error: string };

const receivesOf = (record: SqsRecordInput): number =>
  Number(record.attributes?.ApproximateReceiveCount ?? '1');

/** One record of the step queue. Throws only when the queue or the DLQ cannot be written. */
export const runStepRecord = async <
  Source extends { tenant: string },
  Ports,
  Report extends Leftover,
>(
  options: StepRunOptions<Source, Ports, Report>,
  record: SqsRecordInput,
): Promise<StepOutcome<Report>> => {
  let step: AcquisitionStep;
  try {
    step = parseAcquisitionStep(record.body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (options.deadLetters === undefined) throw error;
    await options.deadLetters.send(record, { code: 'malformed-body', field: 'body', reason });
    return { outcome: 'dead-lettered', reason };
  }
  const receipt = onStepReceipt(step, options.now());
  if (receipt.action === 'delay') {
    await options.queue?.send([{ step, delaySeconds: receipt.delaySeconds }]);
    return { outcome: 'delayed', step, delaySeconds: receipt.delaySeconds };
  }
  const source = options.sources.find(
    (s) => s.tenant === step.tenant && options.provider.sourceId(s) === step.sourceId,
  );
  if (source === undefined)
    return {
      outcome: 'dropped',
      step,
      reason: `no ${options.provider.sourceNoun} ${step.sourceId} of tenant ${step.tenant} is configured`,
    };
  const run = await passAndContinue(options, step.tenant, [source]);
  const failure = run.failed[0]?.error;
  if (failure === undefined) return { outcome: 'ran', step, ...run };
  const receives = receivesOf(record);
  const { deadLetters, maxReceiveCount } = options;
  if (deadLetters === undefined || maxReceiveCount === undefined || receives < maxReceiveCount)
    return { outcome: 'failed', step, error: failure };
  const reason =
    `${options.provider.name} step of ${step.sourceId} failed on its last receive ` +
    `(${receives} of ${maxReceiveCount}): ${failure}`;
  await deadLetters.send(record, { code: 'retries-exhausted', field: step.sourceId, reason });
  return { outcome: 'dead-lettered', reason };
};
