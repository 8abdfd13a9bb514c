import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { AcquisitionEvent } from '../../contract/acquisition';
import { ENV, readRequired } from '../../contract/environment';
import type { SourcePortsClients } from '../adapters/source-ports-clients';
import { secretsManagerReader } from '../adapters/secrets-manager-reader';
import {
  acquisitionStepSettings,
  SqsAcquisitionSteps,
  type AcquisitionStepSettings,
} from '../adapters/sqs-acquisition-steps';
import { SqsDeadLetters } from '../adapters/sqs-dead-letters';
import type { Telemetry } from '../adapters/telemetry';
import {
  failedSourcesError,
  type PortsFactory,
  type SourcePass,
  type SourcePassProvider,
} from '../core/acquisition/source-passes';
import {
  runStepRecord,
  runTenantPasses,
  type StepQueuePort,
  type StepRunOptions,
} from '../core/acquisition/step-runs';
import type { DeadLetterPort } from '../core/ports';
import { RemainingTime } from './remaining-time';

/** A source's next step is not started with less than this left (an Azure run, a GCP month). */
export const ACQUISITION_PASS_RESERVE_MS = 3 * 60_000;

export interface AcquisitionHandlerOptions<
  Source extends { tenant: string },
  Ports,
  Report extends { leftForNextPass: number },
> {
  provider: SourcePassProvider<Source, Ports, Report>;
  /** The provider's sources, from its env var. */
  sources: readonly Source[];
  env: NodeJS.ProcessEnv;
  /** The ports of a source; by default the provider's adapters on this account's clients. */
  portsFor: PortsFactory<Source, Ports> | undefined;
  defaultPorts: (clients: SourcePortsClients) => PortsFactory<Source, Ports>;
  telemetry: Telemetry;
  /** Logs what a finished pass left out (a warning), if anything. */
  warnAbout?: (pass: SourcePass<Report> & { report: Report }, telemetry: Telemetry) => void;
  steps?: AcquisitionStepSeams;
}

/** Test seams: the step queue and its DLQ (by default SQS, when the environment names them). */
export interface AcquisitionStepSeams {
  queue?: StepQueuePort;
  deadLetters?: DeadLetterPort;
  now?: () => number;
}

const isStepEvent = (event: unknown): event is SQSEvent =>
  Array.isArray((event as SQSEvent | undefined)?.Records);

/** The step queue and its DLQ the environment names (none: nothing is continued through SQS). */
const stepPorts = (
  { queueUrl, dlqUrl }: AcquisitionStepSettings,
  stream: string,
): { queue?: StepQueuePort; deadLetters?: DeadLetterPort } => {
  const client = queueUrl || dlqUrl ? new SQSClient({}) : undefined;
  return {
    ...(queueUrl && client ? { queue: new SqsAcquisitionSteps(client, queueUrl) } : {}),
    ...(dlqUrl && client
      ? { deadLetters: new SqsDeadLetters({ client, queueUrl: dlqUrl, fifo: false, stream }) }
      : {}),
  };
};

/**
 * A scheduled acquisition function (`core/acquisition/step-runs.ts`). A schedule's `{"tenant"}`: one
 * pass per source of the tenant. A pass stops before its next step when the invocation has less than
 * `ACQUISITION_PASS_RESERVE_MS` left, or when the provider throttles for longer than is worth
 * sleeping; the source then continues as a step on the provider's step queue, which invokes this
 * function too (one record at a time, partial batch responses). A failed source does not stop the
 * others, but a schedule's invocation then throws naming it (Lambda's error metric, the error alarm);
 * a failed step fails its record (retried by SQS, dead-lettered with the error on its last receive).
 */
export const createAcquisitionHandler = <
  Source extends { tenant: string },
  Ports,
  Report extends { leftForNextPass: number },
>(
  options: AcquisitionHandlerOptions<Source, Ports, Report>,
) => {
  const { provider, sources, env, telemetry } = options;
  const exportBucket = readRequired(env, ENV.exportBucketName);
  const ports =
    options.portsFor ??
    options.defaultPorts({
      dynamo: new DynamoDBClient({}),
      s3: new S3Client({}),
      readSecret: secretsManagerReader(new SecretsManagerClient({})),
      ledgerTable: readRequired(env, ENV.ledgerTableName),
      exportBucket,
    });
  const logName = provider.name.toLowerCase();
  const remaining = new RemainingTime();
  const settings = acquisitionStepSettings(env);
  const steps = options.steps ?? stepPorts(settings, `${logName}-acquisition-steps`);
  const run: StepRunOptions<Source, Ports, Report> = {
    provider,
    sources,
    portsFor: ports,
    exportBucket,
    keepGoing: () => remaining.ms() > ACQUISITION_PASS_RESERVE_MS,
    now: options.steps?.now ?? Date.now,
    ...(steps.queue ? { queue: steps.queue } : {}),
    ...(steps.deadLetters ? { deadLetters: steps.deadLetters } : {}),
    maxReceiveCount: settings.maxReceiveCount,
  };
  const logPasses = (passes: readonly SourcePass<Report>[]) => {
    for (const pass of passes) {
      if (pass.throttledUntil !== undefined && run.queue)
        telemetry.logger.warn(`${logName} source pass throttled, continued as a step`, { ...pass });
      else if (pass.error !== undefined)
        telemetry.logger.error(`${logName} source pass failed`, { ...pass });
      else if (pass.report !== undefined && options.warnAbout)
        options.warnAbout({ ...pass, report: pass.report }, telemetry);
    }
  };

  async function handle(
    event: SQSEvent,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<SQSBatchResponse>;
  async function handle(
    event: AcquisitionEvent,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<{ tenant: string; passes: SourcePass<Report>[] }>;
  async function handle(
    event: AcquisitionEvent | SQSEvent,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<SQSBatchResponse | { tenant: string; passes: SourcePass<Report>[] }> {
    remaining.use(context);
    if (isStepEvent(event)) {
      const response: SQSBatchResponse = { batchItemFailures: [] };
      for (const record of event.Records) {
        const outcome = await runStepRecord(run, record);
        if (outcome.outcome === 'ran') logPasses(outcome.passes);
        const failedStep = outcome.outcome === 'failed' || outcome.outcome === 'dead-lettered';
        telemetry.logger[failedStep ? 'error' : 'info'](`${logName} acquisition step`, {
          messageId: record.messageId,
          ...outcome,
        });
        if (outcome.outcome === 'failed')
          response.batchItemFailures.push({ itemIdentifier: record.messageId });
      }
      return response;
    }
    const tenant = event?.tenant;
    const { passes, steps: sent, failed } = await runTenantPasses(run, tenant);
    logPasses(passes);
    telemetry.logger.info(`${logName} acquisition`, { tenant, passes, steps: sent });
    // A throttled pass continued as a step is not a failure of this invocation.
    const counted = passes.map((pass) =>
      pass.error === undefined || failed.includes(pass) ? pass : { sourceId: pass.sourceId },
    );
    const error = failedSourcesError(provider, tenant, counted);
    if (error) throw error;
    return { tenant, passes };
  }
  return handle;
};
