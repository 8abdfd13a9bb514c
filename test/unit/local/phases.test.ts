import type { SQSClient } from '@aws-sdk/client-sqs';
import type { RedriveResult } from '../../../cli/operations/redrive';
import { AbortedError } from '../../../local/phases/abort';
import { Cleanups } from '../../../local/phases/cleanups';
import { drainUntilQuiet } from '../../../local/phases/drain';
import { createQueues } from '../../../local/phases/environment';
import { setProcessEnv } from '../../../local/phases/handler-runtime';
import { Publisher, type PublishTarget } from '../../../local/phases/publish';
import { redriveDeadLetters } from '../../../local/phases/redrive';
import { settledCheck, skippedInputOf } from '../../../local/phases/judge';
import { resolveRoute } from '../../../local/phases/wiring';
import type { SampleMessage, Topic } from '../../../local/scenarios/sample';
import type { PublishInput } from '../../../local/emulators/sns-in-process';
import type { LocalPlan, MappingPlan, QueuePlan } from '../../../local/runtime/template';

const queue = (name: string, dlq?: string): QueuePlan => ({
  logicalId: name,
  stackName: 'stack',
  queueName: name,
  url: `http://sqs/${name}`,
  arn: `arn:aws:sqs:us-east-1:123456789012:${name}`,
  fifo: false,
  attributes: {},
  visibilityTimeoutSeconds: 30,
  ...(dlq
    ? {
        redrive: {
          deadLetterTargetArn: `arn:aws:sqs:us-east-1:123456789012:${dlq}`,
          maxReceiveCount: 5,
        },
      }
    : {}),
});

describe('environment phase: createQueues', () => {
  it('creates dead-letter targets before the queues that name them', async () => {
    const created: string[] = [];
    await createQueues(
      { createQueue: async (name) => (created.push(name), `http://sqs/${name}`) },
      [queue('source', 'dlq'), queue('dlq')],
    );
    expect(created).toEqual(['dlq', 'source']);
  });

  it('refuses a redrive cycle or a target that is not in the templates', async () => {
    await expect(
      createQueues({ createQueue: async (name) => `http://sqs/${name}` }, [queue('a', 'missing')]),
    ).rejects.toThrow('redrive policies form a cycle or name a queue that is not in the templates');
  });

  it('refuses an emulator URL other than the planned one', async () => {
    await expect(
      createQueues({ createQueue: async () => 'http://elsewhere/q' }, [queue('q')]),
    ).rejects.toThrow('queue q: emulator URL http://elsewhere/q, planned http://sqs/q');
  });
});

describe('wiring phase: resolveRoute', () => {
  const mapping: MappingPlan = {
    logicalId: 'Mapping',
    functionLogicalId: 'Fn',
    queueArn: queue('source').arn,
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    reportBatchItemFailures: true,
    enabled: true,
  };
  const plan: Pick<LocalPlan, 'functions' | 'queues' | 'subscriptions'> = {
    functions: [
      {
        logicalId: 'Fn',
        stackName: 'stack',
        functionName: 'fn',
        arn: 'arn:aws:lambda:us-east-1:123456789012:function:fn',
        handler: 'index.handler',
        timeoutSeconds: 30,
        memoryMb: 256,
        environment: {},
      },
    ],
    queues: [queue('source', 'dlq'), queue('dlq')],
    subscriptions: [
      {
        logicalId: 'Sub',
        topicArn: 'arn:aws:sns:us-east-1:123456789012:topic',
        protocol: 'sqs',
        endpoint: queue('source').arn,
        rawMessageDelivery: true,
        filterPolicyScope: 'MessageAttributes',
      },
    ],
  };

  it('connects a mapping to its function, queue, DLQ and feeding topic', () => {
    const route = resolveRoute(plan, mapping);
    expect(route.fn.functionName).toBe('fn');
    expect(route.queue.queueName).toBe('source');
    expect(route.dlq?.queueName).toBe('dlq');
    expect(route.topicArn).toBe('arn:aws:sns:us-east-1:123456789012:topic');
  });

  it('names what is missing', () => {
    expect(() => resolveRoute({ ...plan, functions: [] }, mapping)).toThrow(
      'event source mapping Mapping: function or queue not in the templates',
    );
  });

  it('routes a queue no topic feeds (the export chunk queue: only a function sends to it)', () => {
    const route = resolveRoute({ ...plan, subscriptions: [] }, mapping);
    expect(route.queue.queueName).toBe('source');
    expect(route.topicArn).toBeUndefined();
  });
});

describe('publish phase: Publisher', () => {
  const message = (
    topic: Topic,
    text: string,
    extra: Partial<SampleMessage> = {},
  ): SampleMessage => ({
    topic,
    message: text,
    ...extra,
  });
  const targets = new Map<Topic, PublishTarget>([
    ['cost-events', { topicArn: 'arn:cost.fifo', fifoTopic: true, settled: () => 0 }],
    ['budget-alerts', { topicArn: 'arn:alerts', fifoTopic: false, settled: () => 0 }],
  ]);

  it('publishes each message to its topic, with FIFO ids only on the FIFO topic', async () => {
    const sent: PublishInput[] = [];
    const result = await new Publisher({
      messages: [
        message('cost-events', 'c', { groupId: 'g', deduplicationId: 'd' }),
        message('budget-alerts', 'a'),
      ],
      targets,
      publish: async (input) => sent.push(input),
      concurrency: 1,
    }).run();
    expect(result).toEqual({ published: 2, unpublished: [] });
    expect(sent).toEqual([
      {
        topicArn: 'arn:cost.fifo',
        message: 'c',
        attributes: undefined,
        groupId: 'g',
        deduplicationId: 'd',
      },
      { topicArn: 'arn:alerts', message: 'a', attributes: undefined },
    ]);
  });

  it('records what SNS refuses, in message order, and carries on', async () => {
    const shown: string[] = [];
    const result = await new Publisher({
      messages: [
        message('budget-alerts', 'too big', { note: 'big one' }),
        message('budget-alerts', 'fine'),
        message('budget-alerts', 'too big', { line: 7 }),
      ],
      targets,
      publish: async (input) => {
        if (input.message === 'too big') throw new RangeError('message too large');
      },
      onUnpublished: (line) => shown.push(line),
      concurrency: 3,
    }).run();
    expect(result.published).toBe(1);
    expect(result.unpublished).toEqual([
      {
        message: 1,
        note: 'big one',
        topic: 'budget-alerts',
        error: 'RangeError: message too large',
      },
      { message: 3, line: 7, topic: 'budget-alerts', error: 'RangeError: message too large' },
    ]);
    expect(shown).toHaveLength(2);
  });

  it('fails on a topic no stream consumes, and stops when aborted', async () => {
    await expect(
      new Publisher({
        messages: [message('budget-alerts', 'a')],
        targets: new Map(),
        publish: async () => undefined,
      }).run(),
    ).rejects.toThrow('no stream consumes topic budget-alerts');
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      new Publisher({
        messages: [message('budget-alerts', 'a')],
        targets,
        publish: async () => undefined,
        signal: aborted.signal,
      }).run(),
    ).rejects.toBeInstanceOf(AbortedError);
  });
});

describe('drain phase', () => {
  it('waits for two quiet polls in a row', async () => {
    const depths = [0, 3, 0, 0];
    let polls = 0;
    await drainUntilQuiet({
      streams: [{ idle: () => true, depth: async () => depths[polls++] ?? 0 }],
      timeoutMs: 5_000,
      pollMs: 1,
    });
    expect(polls).toBe(4);
  });

  it('fails when the streams never settle', async () => {
    await expect(
      drainUntilQuiet({
        streams: [{ idle: () => false, depth: async () => 0 }],
        timeoutMs: 20,
        pollMs: 5,
      }),
    ).rejects.toThrow('the run did not drain in time (messages still in flight)');
  });
});

describe('redrive phase', () => {
  const sqs = {} as SQSClient;
  const streams = [
    { stream: 'cost-events' as const, queue: queue('cost'), dlq: queue('cost-dlq') },
    { stream: 'budget-alerts' as const, queue: queue('alerts') },
  ];

  it('moves every DLQ back to its source queue and counts per stream', async () => {
    const calls: string[] = [];
    const moved = await redriveDeadLetters({
      streams,
      sqs,
      redrive: async (options) => {
        calls.push(`${options.dlqUrl} -> ${options.sourceQueueUrl}`);
        return {
          moved: 4,
          failed: 0,
          status: 'COMPLETED',
          sourceArn: 'arn:dlq',
        } satisfies RedriveResult;
      },
    });
    expect(moved).toEqual({ 'cost-events': 4, 'budget-alerts': 0 });
    expect(calls).toEqual(['http://sqs/cost-dlq -> http://sqs/cost']);
  });

  it('fails the run on a failed redrive, naming the queue', async () => {
    await expect(
      redriveDeadLetters({
        streams,
        sqs,
        redrive: async () =>
          ({
            moved: 0,
            failed: 2,
            status: 'FAILED',
            failureReason: 'boom',
            sourceArn: 'arn:dlq',
          }) satisfies RedriveResult,
      }),
    ).rejects.toThrow('redrive of cost-dlq failed: boom');
  });
});

describe('report phase', () => {
  it('settled only when nothing is left in any source queue', () => {
    expect(
      settledCheck([
        ['cost-events', 0],
        ['budget-alerts', 0],
      ]),
    ).toEqual({
      name: 'settled',
      ok: true,
      detail: 'nothing left in a source queue or in flight',
    });
    expect(
      settledCheck([
        ['cost-events', 2],
        ['budget-alerts', 0],
      ]),
    ).toMatchObject({
      ok: false,
      detail: 'cost-events: 2 left, budget-alerts: 0 left',
    });
  });

  it('lists skipped and refused input lines together, in line order', () => {
    expect(
      skippedInputOf({ messages: [], lines: 9, skipped: [{ line: 8, error: 'bad json' }] }, [
        { message: 1, line: 3, topic: 'cost-events', error: 'too large' },
      ]),
    ).toEqual([
      { line: 3, error: 'not published: too large' },
      { line: 8, error: 'bad json' },
    ]);
  });
});

describe('run plumbing', () => {
  it('cleanups run in reverse order and a failing one does not stop the rest', async () => {
    const ran: number[] = [];
    const cleanups = new Cleanups();
    cleanups.add(() => ran.push(1));
    cleanups.add(() => {
      throw new Error('stuck');
    });
    cleanups.add(async () => ran.push(3));
    await cleanups.runAll();
    expect(ran).toEqual([3, 1]);
  });

  it('process variables set for a run are restored (or removed) afterwards', async () => {
    process.env.P2_KEPT = 'before';
    delete process.env.P2_NEW;
    const cleanups = new Cleanups();
    setProcessEnv({ P2_KEPT: 'during', P2_NEW: 'during' }, cleanups);
    expect([process.env.P2_KEPT, process.env.P2_NEW]).toEqual(['during', 'during']);
    await cleanups.runAll();
    expect(process.env.P2_KEPT).toBe('before');
    expect('P2_NEW' in process.env).toBe(false);
    delete process.env.P2_KEPT;
  });
});
