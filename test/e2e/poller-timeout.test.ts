/**
 * The poller's invocation timeout covers the handler's synchronous work: a handler that blocks the event
 * loop past the function timeout is a timed-out invocation (its records come back), as on Lambda.
 */
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { startLocalSqs, type LocalSqs } from '../../local/emulators/dynamodb-sqs';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/emulators/local-aws';
import { FaultPlan, NO_FAULTS } from '../../local/runtime/faults';
import type { LocalHandler } from '../../local/runtime/functions';
import { QueuePoller } from '../../local/runtime/poller';
import type { FunctionPlan, MappingPlan, QueuePlan } from '../../local/runtime/template';

let sqs: LocalSqs;
beforeAll(async () => {
  sqs = await startLocalSqs();
});
afterAll(async () => {
  await sqs.stop();
});

const TIMEOUT_SECONDS = 0.3;
const blockFor = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // a synchronous stall: no timer can fire while this runs
  }
};

const runOne = async (handler: LocalHandler) => {
  const name = `timeout-${Math.random().toString(36).slice(2, 10)}`;
  const url = await sqs.createQueue(name, { VisibilityTimeout: '60' });
  await sqs.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'charge' }));
  const queue: QueuePlan = {
    logicalId: 'Queue',
    stackName: 'test',
    queueName: name,
    url,
    arn: `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${name}`,
    fifo: false,
    attributes: {},
    visibilityTimeoutSeconds: 60,
  };
  const mapping: MappingPlan = {
    logicalId: 'Mapping',
    functionLogicalId: 'Fn',
    queueArn: queue.arn,
    batchSize: 1,
    maxBatchingWindowSeconds: 0,
    reportBatchItemFailures: true,
    maxConcurrency: 1,
    enabled: true,
  };
  const fn: FunctionPlan = {
    logicalId: 'Fn',
    stackName: 'test',
    functionName: 'fn',
    arn: 'arn:fn',
    handler: 'index.handler',
    timeoutSeconds: TIMEOUT_SECONDS,
    memoryMb: 128,
    environment: {},
  };
  const receiveCounts: number[] = [];
  const poller = new QueuePoller({
    stream: 'test',
    queue,
    mapping,
    fn,
    sqs: sqs.client,
    faults: new FaultPlan({ rates: NO_FAULTS, seed: 1 }),
    createHandler: () => (event: SQSEvent, context) => {
      receiveCounts.push(Number(event.Records[0].attributes.ApproximateReceiveCount));
      return handler(event, context);
    },
  });
  poller.start();
  const deadline = Date.now() + 20_000;
  const depth = async () => {
    const { Attributes = {} } = await sqs.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return (
      Number(Attributes.ApproximateNumberOfMessages) +
      Number(Attributes.ApproximateNumberOfMessagesNotVisible)
    );
  };
  while (!(poller.idle() && (await depth()) === 0)) {
    if (Date.now() > deadline) throw new Error('did not drain');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await poller.stop();
  return { stats: poller.stats, receiveCounts };
};

it('times out a handler that blocks the event loop before it returns its promise', async () => {
  let calls = 0;
  const { stats, receiveCounts } = await runOne((() => {
    if (++calls === 1) blockFor(TIMEOUT_SECONDS * 2000);
    return Promise.resolve({ batchItemFailures: [] });
  }) as LocalHandler);
  expect(stats.timeouts).toBe(1);
  expect(receiveCounts).toEqual([1, 2]);
  expect(stats.retried).toBe(1);
}, 30_000);

it('times out a handler that blocks the event loop after its first await', async () => {
  let calls = 0;
  const { stats, receiveCounts } = await runOne((async () => {
    await Promise.resolve();
    if (++calls === 1) blockFor(TIMEOUT_SECONDS * 2000);
    return { batchItemFailures: [] };
  }) as LocalHandler);
  expect(stats.timeouts).toBe(1);
  expect(receiveCounts).toEqual([1, 2]);
}, 30_000);

it('does not time out a handler that finishes in time', async () => {
  const { stats, receiveCounts } = await runOne((async () => ({
    batchItemFailures: [],
  })) as LocalHandler);
  expect(stats.timeouts).toBe(0);
  expect(receiveCounts).toEqual([1]);
}, 30_000);
