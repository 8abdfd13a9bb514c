import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { consumerSettings, type ConsumerSettings } from '../adapters/settings';
import { deadLettersFor } from '../adapters/sqs-dead-letters';
import { createTelemetry, reportBatch, type Telemetry } from '../adapters/telemetry';
import type { BatchObserver, BatchOutcome } from '../core/batch';
import type { DeadLetterPort } from '../core/ports';

/** What every consumer is wired with: its settings, its DLQ (forwarding each message once), telemetry. */
export interface ConsumerWiring {
  settings: ConsumerSettings;
  deadLetters: DeadLetterPort;
  telemetry: Telemetry;
}

export const wireConsumer = (
  env: NodeJS.ProcessEnv,
  clients: { dynamo: DynamoDBClient; sqs: SQSClient },
): ConsumerWiring => {
  const settings = consumerSettings(env);
  return {
    settings,
    deadLetters: deadLettersFor(settings, clients),
    telemetry: createTelemetry(env),
  };
};

/** Runs one SQS event through `process`, logs and counts its outcomes, answers with the partial batch response. */
export const batchHandler =
  (
    wiring: ConsumerWiring,
    process: (records: SQSRecord[], context?: Context) => Promise<BatchOutcome>,
    observe?: BatchObserver,
  ) =>
  async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    const outcome = await process(event.Records, context);
    reportBatch(wiring.telemetry, wiring.settings.stream, outcome);
    observe?.(outcome);
    return { batchItemFailures: outcome.batchItemFailures };
  };

/** The Lambda entry point: wires the handler on the first invocation, once per container. */
export const onFirstInvocation = <A extends unknown[], R>(
  create: () => (...args: A) => R,
): ((...args: A) => R) => {
  let instance: ((...args: A) => R) | undefined;
  return (...args) => (instance ??= create())(...args);
};
