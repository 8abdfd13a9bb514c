/**
 * Phase 1, the environment: DynamoDB Local and the SQS emulator on free loopback ports, the
 * template's tables and queues created in them, the local SNS endpoint, and the stack outputs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import {
  startDynamoDbLocal,
  startLocalSqs,
  type DynamoDbLocal,
  type LocalSqs,
} from '../emulators/dynamodb-sqs';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../emulators/local-aws';
import { startLocalS3, type LocalS3 } from '../emulators/s3';
import { notificationRulesOf } from '../emulators/s3-notifications';
import { LocalSns } from '../emulators/sns-in-process';
import { startSnsEndpoint, type SnsEndpoint } from '../emulators/sns-http-endpoint';
import type { SynthesizedStack } from '../runtime/synth';
import { buildPlan, type LocalPlan } from '../runtime/template';
import { throwIfAborted } from './abort';
import type { Cleanups } from './cleanups';

export interface LocalEnvironment {
  plan: LocalPlan;
  dynamo: DynamoDbLocal;
  sqs: LocalSqs;
  s3: LocalS3;
  sns: SnsEndpoint;
  endpoints: { dynamodb: string; sqs: string; sns: string; s3: string };
  outputs: Record<string, unknown>;
}

/** The environment plus the run's own clients of it. */
export interface StartedEnvironment {
  environment: LocalEnvironment;
  /** Creates the tables and reads the ledger at the end (no faults). */
  adminDynamo: DynamoDBClient;
  /** The pollers', the SNS fan-out's and the probes' SQS client (no faults). */
  pollerSqs: SQSClient;
  localSns: LocalSns;
}

/** The minimum of an SQS emulator that queue creation needs. */
export type QueueCreator = Pick<LocalSqs, 'createQueue'>;

export const createTables = async (client: DynamoDBClient, plan: LocalPlan): Promise<void> => {
  for (const table of plan.tables) {
    await client.send(
      new CreateTableCommand({
        TableName: table.tableName,
        KeySchema: table.keySchema,
        AttributeDefinitions: table.attributeDefinitions,
        BillingMode: 'PAY_PER_REQUEST',
        ...(table.globalSecondaryIndexes
          ? {
              GlobalSecondaryIndexes:
                table.globalSecondaryIndexes as CreateTableCommandInput['GlobalSecondaryIndexes'],
            }
          : {}),
        ...(table.localSecondaryIndexes
          ? {
              LocalSecondaryIndexes:
                table.localSecondaryIndexes as CreateTableCommandInput['LocalSecondaryIndexes'],
            }
          : {}),
      }),
    );
    if (table.ttlAttribute)
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: table.tableName,
          TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
        }),
      );
  }
};

/** Dead-letter targets first: a redrive policy must name an existing queue. */
export const createQueues = async (
  sqs: QueueCreator,
  queues: LocalPlan['queues'],
): Promise<void> => {
  const created = new Set<string>();
  const pending = [...queues];
  while (pending.length > 0) {
    const index = pending.findIndex(
      (queue) => !queue.redrive || created.has(queue.redrive.deadLetterTargetArn),
    );
    if (index < 0)
      throw new Error('redrive policies form a cycle or name a queue that is not in the templates');
    const [queue] = pending.splice(index, 1);
    const url = await sqs.createQueue(queue.queueName, queue.attributes);
    if (url !== queue.url)
      throw new Error(`queue ${queue.queueName}: emulator URL ${url}, planned ${queue.url}`);
    created.add(queue.arn);
  }
};

const startEmulators = async (
  cleanups: Cleanups,
): Promise<{ dynamo: DynamoDbLocal; sqs: LocalSqs; s3: LocalS3 }> => {
  const [dynamo, sqs, s3] = await Promise.allSettled([
    startDynamoDbLocal(),
    startLocalSqs(),
    startLocalS3(),
  ]);
  for (const started of [dynamo, sqs, s3])
    if (started.status === 'fulfilled') {
      const emulator = started.value;
      cleanups.add(() => emulator.stop());
    }
  for (const started of [dynamo, sqs, s3]) if (started.status === 'rejected') throw started.reason;
  return {
    dynamo: (dynamo as PromiseFulfilledResult<DynamoDbLocal>).value,
    sqs: (sqs as PromiseFulfilledResult<LocalSqs>).value,
    s3: (s3 as PromiseFulfilledResult<LocalS3>).value,
  };
};

/**
 * The template's buckets, and their notification configurations wired to the local SNS as S3 would
 * deliver them (a configuration S3 would refuse fails the start, naming the resource).
 */
export const createBuckets = async (
  s3: Pick<LocalS3, 'createBucket' | 'deliverNotifications'>,
  plan: Pick<LocalPlan, 'buckets' | 'bucketNotifications'>,
  sns: Parameters<LocalS3['deliverNotifications']>[2],
): Promise<void> => {
  for (const bucket of plan.buckets) await s3.createBucket(bucket.bucketName);
  for (const notification of plan.bucketNotifications) {
    let rules;
    try {
      rules = notificationRulesOf(notification.configuration);
    } catch (error) {
      throw new Error(
        `${notification.stackName}/${notification.logicalId}: ${(error as Error).message}`,
      );
    }
    if (!plan.buckets.some((bucket) => bucket.bucketName === notification.bucketName))
      await s3.createBucket(notification.bucketName);
    await s3.deliverNotifications(notification.bucketName, rules, sns);
  }
};

export const startEnvironment = async (options: {
  stacks: SynthesizedStack[];
  cleanups: Cleanups;
  /** Where to write the stack outputs; undefined: nowhere. */
  outputsFile?: string;
  signal?: AbortSignal;
  /** The local HTTP API's URL (the push endpoint), when the run serves one. */
  httpApiEndpoint?: string;
}): Promise<StartedEnvironment> => {
  const { cleanups } = options;
  const { dynamo, sqs, s3 } = await startEmulators(cleanups);
  throwIfAborted(options.signal);

  const plan = buildPlan(options.stacks, {
    sqsEndpoint: sqs.endpoint,
    ...(options.httpApiEndpoint ? { httpApiEndpoint: options.httpApiEndpoint } : {}),
  });
  const adminDynamo = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  cleanups.add(() => adminDynamo.destroy());
  await createTables(adminDynamo, plan);
  await createQueues(sqs, plan.queues);

  const pollerSqs = new SQSClient({
    endpoint: sqs.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  cleanups.add(() => pollerSqs.destroy());
  const localSns = new LocalSns(plan.topics, plan.subscriptions, plan.queues, pollerSqs);
  const sns = await startSnsEndpoint(localSns);
  cleanups.add(() => sns.stop());
  await createBuckets(s3, plan, localSns);
  const endpoints = {
    dynamodb: dynamo.endpoint,
    sqs: sqs.endpoint,
    sns: sns.endpoint,
    s3: s3.endpoint,
  };
  const outputs: Record<string, unknown> = { ...plan.outputs, endpoints, region: LOCAL_REGION };
  if (options.outputsFile) {
    mkdirSync(path.dirname(options.outputsFile), { recursive: true });
    writeFileSync(options.outputsFile, `${JSON.stringify(outputs, null, 2)}\n`);
  }
  return {
    environment: { plan, dynamo, sqs, s3, sns, endpoints, outputs },
    adminDynamo,
    pollerSqs,
    localSns,
  };
};
