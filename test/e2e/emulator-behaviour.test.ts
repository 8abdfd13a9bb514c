/**
 * What the local runtime relies on or works around in local-aws-sqs, each shown on the emulator itself,
 * and the poller restoring real FIFO semantics on top of it.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  StartMessageMoveTaskCommand,
  type Message,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { startLocalSqs, type LocalSqs } from '../../local/emulators/dynamodb-sqs';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/emulators/local-aws';
import { FaultPlan, NO_FAULTS } from '../../local/runtime/faults';
import { QueuePoller } from '../../local/runtime/poller';
import type { FunctionPlan, MappingPlan, QueuePlan } from '../../local/runtime/template';

let raw: LocalSqs;
let shimmed: LocalSqs;

beforeAll(async () => {
  raw = await startLocalSqs({ fidelityShim: false });
  shimmed = await startLocalSqs();
});
afterAll(async () => {
  await raw.stop();
  await shimmed.stop();
});

const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
const arnOf = (name: string) => `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${name}`;

const receive = async (
  sqs: LocalSqs,
  url: string,
  max = 10,
  wait = 0,
  visibility?: number,
): Promise<Message[]> =>
  (
    await sqs.client.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: wait,
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
        ...(visibility === undefined ? {} : { VisibilityTimeout: visibility }),
      }),
    )
  ).Messages ?? [];

const depth = async (sqs: LocalSqs, url: string) =>
  Number(
    (
      await sqs.client.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      )
    ).Attributes?.ApproximateNumberOfMessages,
  );

const fifoWithDlq = async (sqs: LocalSqs, maxReceiveCount: number, dlqVisibility = '30') => {
  const dlqName = `${unique('dlq')}.fifo`;
  const dlqUrl = await sqs.createQueue(dlqName, {
    FifoQueue: 'true',
    VisibilityTimeout: dlqVisibility,
  });
  const name = `${unique('q')}.fifo`;
  const url = await sqs.createQueue(name, {
    FifoQueue: 'true',
    VisibilityTimeout: '120',
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arnOf(dlqName), maxReceiveCount }),
  });
  return { url, name, dlqUrl, dlqName };
};

const send = (sqs: LocalSqs, url: string, body: string, group: string, dedup = body) =>
  sqs.client.send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: body,
      MessageGroupId: group,
      MessageDeduplicationId: dedup,
    }),
  );

describe('local-aws-sqs behaviour the poller works around', () => {
  it('does not lock a FIFO message group while one of its messages is in flight (real SQS does)', async () => {
    const { url } = await fifoWithDlq(raw, 5);
    for (const body of ['a1', 'a2', 'a3']) await send(raw, url, body, 'A');
    expect((await receive(raw, url, 1)).map((m) => m.Body)).toEqual(['a1']);
    expect((await receive(raw, url, 10)).map((m) => m.Body)).toEqual(['a2', 'a3']);
  });

  it('returns one message twice from a long poll longer than the visibility timeout', async () => {
    const url = await raw.createQueue(unique('short-visibility'), { VisibilityTimeout: '1' });
    await raw.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'only' }));
    const messages = await receive(raw, url, 10, 2);
    expect(messages.length).toBeGreaterThan(1);
    expect(new Set(messages.map((m) => m.MessageId)).size).toBe(1);
  });

  it('counts ChangeMessageVisibility as a receive; the fidelity shim takes that back', async () => {
    for (const [sqs, expected] of [
      [raw, '3'],
      [shimmed, '2'],
    ] as const) {
      const url = await sqs.createQueue(unique('cmv'), { VisibilityTimeout: '60' });
      await sqs.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' }));
      const [first] = await receive(sqs, url);
      await sqs.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: url,
          ReceiptHandle: first.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      );
      const [second] = await receive(sqs, url);
      // Two receives: real SQS reports 2.
      expect(second.Attributes?.ApproximateReceiveCount).toBe(expected);
    }
  });

  it('moves a message to the DLQ when its visibility ends after maxReceiveCount receives (with the shim: receives only)', async () => {
    const { url, dlqUrl } = await fifoWithDlq(shimmed, 3);
    await send(shimmed, url, 'doomed', 'G');
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [message] = await receive(shimmed, url, 1);
      expect(message.Attributes?.ApproximateReceiveCount).toBe(String(attempt));
      // Extending the visibility (a hold) must not count.
      await shimmed.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: url,
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: 60,
        }),
      );
      await shimmed.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: url,
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(await depth(shimmed, url)).toBe(0);
    const [dead] = await receive(shimmed, dlqUrl);
    expect(dead.Body).toBe('doomed');
    expect(dead.Attributes?.DeadLetterQueueSourceArn).toMatch(/:q-.*\.fifo$/);
  });

  it('deduplicates a FIFO MessageDeduplicationId only while the first copy is queued (SQS: 5 minutes), so the local SNS keeps the window', async () => {
    const { url } = await fifoWithDlq(raw, 5);
    const first = await send(raw, url, 'x', 'B', 'same');
    expect((await send(raw, url, 'x', 'B', 'same')).MessageId).toBe(first.MessageId);
    const [message] = await receive(raw, url);
    await raw.client.send(
      new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }),
    );
    expect((await send(raw, url, 'x', 'B', 'same')).MessageId).not.toBe(first.MessageId);
  });

  it('runs StartMessageMoveTask; messages the consumer forwarded need an explicit DestinationArn', async () => {
    const { url, name, dlqUrl, dlqName } = await fifoWithDlq(shimmed, 5, '1');
    await send(shimmed, dlqUrl, 'poison', 'G', 'poison-1');
    await shimmed.client.send(new StartMessageMoveTaskCommand({ SourceArn: arnOf(dlqName) }));
    const waitForTask = async () => {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const [task] =
          (
            await shimmed.client.send(
              new ListMessageMoveTasksCommand({ SourceArn: arnOf(dlqName) }),
            )
          ).Results ?? [];
        if (task && task.Status !== 'RUNNING') return task;
      }
    };
    expect(await waitForTask()).toMatchObject({
      Status: 'FAILED',
      FailureReason: 'CouldNotDetermineMessageSource',
    });
    // The failed task received the message: it is invisible for the DLQ's visibility timeout (1 s here).
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await shimmed.client.send(
      new StartMessageMoveTaskCommand({ SourceArn: arnOf(dlqName), DestinationArn: arnOf(name) }),
    );
    expect(await waitForTask()).toMatchObject({
      Status: 'COMPLETED',
      ApproximateNumberOfMessagesMoved: 1,
    });
    expect(
      (await receive(shimmed, url)).map((m) => [m.Body, m.Attributes?.MessageGroupId]),
    ).toEqual([['poison', 'G']]);
  });
});

describe('the poller restores FIFO semantics on the emulator', () => {
  it('keeps per-group order under lost acks and timeouts, with honest receive counts and no DLQ moves', async () => {
    const maxReceiveCount = 10;
    const { url, name, dlqUrl } = await fifoWithDlq(shimmed, maxReceiveCount);
    const groups = ['g1', 'g2', 'g3', 'g4'];
    const published: Record<string, string[]> = {};
    for (let n = 0; n < 25; n++)
      for (const group of groups) {
        const body = `${group}-${String(n).padStart(2, '0')}`;
        (published[group] ??= []).push(body);
        await send(shimmed, url, body, group);
      }
    const firstProcessed: Record<string, string[]> = {};
    const deliveries = new Map<string, number[]>();
    let inFlightGroups = new Set<string>();
    let overlap = false;
    const handler = async (event: SQSEvent) => {
      const groupsHere = new Set(event.Records.map((r) => r.attributes.MessageGroupId as string));
      for (const group of groupsHere) if (inFlightGroups.has(group)) overlap = true;
      inFlightGroups = new Set([...inFlightGroups, ...groupsHere]);
      for (const record of event.Records) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        const group = record.attributes.MessageGroupId as string;
        const seen = (firstProcessed[group] ??= []);
        if (!seen.includes(record.body)) seen.push(record.body);
        deliveries.set(record.body, [
          ...(deliveries.get(record.body) ?? []),
          Number(record.attributes.ApproximateReceiveCount),
        ]);
      }
      for (const group of groupsHere) inFlightGroups.delete(group);
      return { batchItemFailures: [] };
    };
    const queue: QueuePlan = {
      logicalId: 'Queue',
      stackName: 'test',
      queueName: name,
      url,
      arn: arnOf(name),
      fifo: true,
      attributes: {},
      visibilityTimeoutSeconds: 120,
      redrive: { deadLetterTargetArn: 'dlq', maxReceiveCount },
    };
    const mapping: MappingPlan = {
      logicalId: 'Mapping',
      functionLogicalId: 'Fn',
      queueArn: queue.arn,
      batchSize: 5,
      maxBatchingWindowSeconds: 0,
      reportBatchItemFailures: true,
      maxConcurrency: 4,
      enabled: true,
    };
    const fn: FunctionPlan = {
      logicalId: 'Fn',
      stackName: 'test',
      functionName: 'fn',
      arn: 'arn:fn',
      handler: 'index.handler',
      timeoutSeconds: 30,
      memoryMb: 128,
      environment: {},
    };
    const faults = new FaultPlan({
      rates: { ...NO_FAULTS, 'ack-loss': 0.3, timeout: 0.2 },
      seed: 7,
    });
    const poller = new QueuePoller({
      stream: 'test',
      queue,
      mapping,
      fn,
      sqs: shimmed.client,
      faults,
      createHandler: () => handler,
    });
    poller.start();
    const deadline = Date.now() + 60_000;
    while (!(poller.idle() && (await depth(shimmed, url)) === 0)) {
      if (Date.now() > deadline) throw new Error('did not drain');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await poller.stop();

    expect(faults.injected['ack-loss']).toBeGreaterThan(5);
    expect(faults.injected.timeout).toBeGreaterThan(2);
    expect(poller.stats.heldBack).toBeGreaterThan(0);
    expect(overlap).toBe(false);
    for (const group of groups) expect(firstProcessed[group]).toEqual(published[group]);
    // Every delivery's receive count is its ordinal: no hidden receive (a bounce or a visibility change).
    for (const counts of deliveries.values())
      expect(counts).toEqual(counts.map((_, index) => index + 1));
    expect(await depth(shimmed, dlqUrl)).toBe(0);
    expect(poller.stats.exhausted).toBe(0);
    expect(poller.stats.awaitExpired).toBe(0);
  }, 90_000);
});
