/**
 * `npm start`: the synthesized stack on this machine. Synthesize, start the emulators, create the
 * template's resources, run the real handlers under event-source pollers with faults, publish the sample
 * (or the input file), drain, optionally redrive the DLQs with faults off, and judge the result.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { readAllTotals } from '../lambda/adapters/ledger-reader';
import { redriveDlq } from '../cli/operations/redrive';
import {
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  startDynamoDbLocal,
  startLocalSqs,
  type DynamoDbLocal,
  type LocalSqs,
} from './emulators';
import {
  FaultPlan,
  NO_FAULTS,
  DEFAULT_SAMPLE_FAULTS,
  type DynamoCall,
  type FaultRates,
} from './faults';
import { handlerFactoryFor } from './functions';
import { generateSample, type Sample, type SampleMessage, type Topic } from './generator';
import { publishIds, readInputFile, type InputFile } from './input';
import { HandlerLogSink } from './outcomes';
import { QueuePoller, type RecordEvent } from './poller';
import { silentProgress, type ProgressSink } from './progress';
import {
  describeUnpublished,
  notificationOf,
  streamReport,
  verdictAgainstTruth,
  verdictWithoutTruth,
  type Check,
  type DeadLetter,
  type LocalReport,
  type RunInfo,
  type UnpublishedMessage,
} from './report';
import { LocalSns } from './sns';
import { startSnsEndpoint, type SnsEndpoint } from './sns-http';
import { synthesize, type SynthesizedStack } from './synth';
import { buildPlan, type LocalPlan, type QueuePlan } from './template';

export const DEFAULT_SEED = 42;
const PROJECT_ROOT = path.resolve(__dirname, '..');

export interface RunOptions {
  /** JSONL input instead of the generated sample. */
  input?: string;
  /** Default: light faults for the sample, none for an input file. */
  faults?: FaultRates;
  seed?: number;
  /** Extra CDK context for the synth (e.g. `{ maxReceiveCount: 3 }`). */
  context?: Record<string, unknown>;
  /** A ready-made sample (tests); default: generateSample({ seed }). */
  sample?: Sample;
  /** Charges per account and month of the generated sample. */
  sampleSize?: number;
  /** After draining: redrive every DLQ with faults off and drain again. */
  redrive?: boolean;
  /** Keep the emulators (and pollers, faults off) running until `signal` aborts. */
  keepRunning?: boolean;
  progress?: ProgressSink;
  /** Where to write the stack outputs (default .local/stack-outputs.json; false: nowhere). */
  outputsFile?: string | false;
  /** Handler log lines (default .local/handler-logs.jsonl; false: dropped). */
  handlerLogFile?: string | false;
  /** Aborts the run (Ctrl-C); the emulators are stopped either way. */
  signal?: AbortSignal;
  /** Test hooks. */
  permanentThrottle?: (call: DynamoCall) => boolean;
  onRecord?: (event: RecordEvent) => void;
  onEnvironment?: (environment: LocalEnvironment) => void;
  /** Give up draining after this long (default 10 minutes). */
  drainTimeoutMs?: number;
}

export interface LocalEnvironment {
  plan: LocalPlan;
  dynamo: DynamoDbLocal;
  sqs: LocalSqs;
  sns: SnsEndpoint;
  endpoints: { dynamodb: string; sqs: string; sns: string };
  outputs: Record<string, unknown>;
}

export interface RunResult {
  report: LocalReport;
  exitCode: 0 | 1;
  /** What each DLQ held at the end (peeked and put back). */
  deadLetters: Record<string, DeadLetter[]>;
  environment: { endpoints: LocalEnvironment['endpoints']; jvmPid?: number };
}

export class AbortedError extends Error {
  constructor() {
    super('interrupted');
    this.name = 'AbortedError';
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

// ------------------------------------------------------------ provisioning

const createTables = async (client: DynamoDBClient, plan: LocalPlan) => {
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
const createQueues = async (sqs: LocalSqs, plan: LocalPlan) => {
  const created = new Set<string>();
  const pending = [...plan.queues];
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

// ------------------------------------------------------------ the run

const unpublishedOf = (
  index: number,
  message: SampleMessage,
  error: unknown,
): UnpublishedMessage => ({
  message: index + 1,
  ...(message.line !== undefined ? { line: message.line } : {}),
  ...(message.note !== undefined ? { note: message.note } : {}),
  topic: message.topic,
  error:
    error instanceof Error
      ? `${error.name && error.name !== 'Error' ? `${error.name}: ` : ''}${error.message}`
      : String(error),
});

interface StreamWiring {
  stream: string;
  topic: Topic;
  topicArn: string;
  fifoTopic: boolean;
  queue: QueuePlan;
  dlq?: QueuePlan;
  poller: QueuePoller;
}

const peekDeadLetters = async (sqs: SQSClient, queue: QueuePlan): Promise<DeadLetter[]> => {
  const seen = new Map<string, DeadLetter>();
  const handles: string[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 60,
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) {
      handles.push(message.ReceiptHandle as string);
      seen.set(message.MessageId as string, {
        body: message.Body ?? '',
        attributes: Object.fromEntries(
          Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
            name,
            value.StringValue ?? '',
          ]),
        ),
        ...(message.Attributes?.DeadLetterQueueSourceArn
          ? { deadLetterSource: message.Attributes.DeadLetterQueueSourceArn }
          : {}),
      });
    }
  }
  // Put them back for the operator (the fidelity shim keeps their receive counts honest).
  await Promise.all(
    handles.map((handle) =>
      sqs
        .send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: queue.url,
            ReceiptHandle: handle,
            VisibilityTimeout: 0,
          }),
        )
        .catch(() => undefined),
    ),
  );
  return [...seen.values()];
};

const queueDepth = async (sqs: SQSClient, queue: QueuePlan): Promise<number> => {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queue.url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
};

export const runLocal = async (options: RunOptions = {}): Promise<RunResult> => {
  const progress = options.progress ?? silentProgress;
  const signal = options.signal;
  const seed = options.seed ?? DEFAULT_SEED;
  const input: InputFile | undefined = options.input ? readInputFile(options.input) : undefined;
  const faultRates = options.faults ?? (input ? NO_FAULTS : DEFAULT_SAMPLE_FAULTS);

  progress.phase('synthesizing the CDK app (in-process, bundling skipped)…');
  const stacks: SynthesizedStack[] = synthesize(options.context);
  if (signal?.aborted) throw new AbortedError();

  const savedEnv = {
    POWERTOOLS_DEV: process.env.POWERTOOLS_DEV,
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED,
  };
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step();
      } catch {
        // keep stopping the rest
      }
    }
    cleanups.length = 0;
  };
  try {
    progress.phase('starting DynamoDB Local and the SQS emulator on free loopback ports…');
    const dynamoStart = startDynamoDbLocal();
    const sqsStart = startLocalSqs();
    const [dynamoLocal, sqsLocal] = await Promise.allSettled([dynamoStart, sqsStart]);
    if (dynamoLocal.status === 'fulfilled') cleanups.push(() => dynamoLocal.value.stop());
    if (sqsLocal.status === 'fulfilled') cleanups.push(() => sqsLocal.value.stop());
    if (dynamoLocal.status === 'rejected') throw dynamoLocal.reason;
    if (sqsLocal.status === 'rejected') throw sqsLocal.reason;
    const dynamoDb = dynamoLocal.value;
    const sqsEmulator = sqsLocal.value;
    if (signal?.aborted) throw new AbortedError();

    const plan = buildPlan(stacks, { sqsEndpoint: sqsEmulator.endpoint });
    const adminDynamo = new DynamoDBClient({
      endpoint: dynamoDb.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    cleanups.push(() => adminDynamo.destroy());
    await createTables(adminDynamo, plan);
    await createQueues(sqsEmulator, plan);

    const pollerSqs = new SQSClient({
      endpoint: sqsEmulator.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    cleanups.push(() => pollerSqs.destroy());
    const localSns = new LocalSns(plan.topics, plan.subscriptions, plan.queues, pollerSqs);
    const snsEndpoint = await startSnsEndpoint(localSns);
    cleanups.push(() => snsEndpoint.stop());
    const endpoints = {
      dynamodb: dynamoDb.endpoint,
      sqs: sqsEmulator.endpoint,
      sns: snsEndpoint.endpoint,
    };
    const outputs: Record<string, unknown> = { ...plan.outputs, endpoints, region: LOCAL_REGION };
    if (options.outputsFile !== false) {
      const file = options.outputsFile ?? path.join(PROJECT_ROOT, '.local', 'stack-outputs.json');
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(outputs, null, 2)}\n`);
    }
    options.onEnvironment?.({
      plan,
      dynamo: dynamoDb,
      sqs: sqsEmulator,
      sns: snsEndpoint,
      endpoints,
      outputs,
    });

    // ---- handlers, clients, faults
    const faults = new FaultPlan({
      rates: faultRates,
      seed,
      permanentThrottle: options.permanentThrottle,
    });
    const handlerDynamo = new DynamoDBClient({
      endpoint: dynamoDb.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    faults.attach(handlerDynamo);
    const handlerSqs = new SQSClient({
      endpoint: sqsEmulator.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    const handlerSns = localSns.client();
    cleanups.push(() => {
      handlerDynamo.destroy();
      handlerSqs.destroy();
      handlerSns.destroy();
    });
    process.env.POWERTOOLS_DEV = 'true';
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    cleanups.push(() => {
      for (const [name, value] of Object.entries(savedEnv)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
    const templateLogLevel = plan.functions[0]?.environment.POWERTOOLS_LOG_LEVEL ?? 'INFO';
    const sink = new HandlerLogSink({
      file:
        options.handlerLogFile === false
          ? undefined
          : (options.handlerLogFile ?? path.join(PROJECT_ROOT, '.local', 'handler-logs.jsonl')),
      minLevel: templateLogLevel,
    });
    sink.install();
    cleanups.push(() => sink.uninstall());

    const wirings: StreamWiring[] = [];
    for (const mapping of plan.mappings.filter((m) => m.enabled)) {
      const fn = plan.functions.find(
        (candidate) => candidate.logicalId === mapping.functionLogicalId,
      );
      const queue = plan.queues.find((candidate) => candidate.arn === mapping.queueArn);
      if (!fn || !queue)
        throw new Error(
          `event source mapping ${mapping.logicalId}: function or queue not in the templates`,
        );
      const factory = handlerFactoryFor(fn.functionName, fn.environment);
      const env = {
        ...fn.environment,
        AWS_REGION: LOCAL_REGION,
        AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
      };
      const subscription = plan.subscriptions.find(
        (s) => s.endpoint === queue.arn && s.protocol === 'sqs',
      );
      if (!subscription)
        throw new Error(`queue ${queue.queueName} has no SNS subscription in the templates`);
      const poller = new QueuePoller({
        stream: factory.stream,
        queue,
        mapping,
        fn,
        sqs: pollerSqs,
        faults,
        createHandler: () =>
          factory.create(env, { dynamo: handlerDynamo, sqs: handlerSqs, sns: handlerSns }),
        onRecord: options.onRecord,
      });
      wirings.push({
        stream: factory.stream,
        topic: factory.stream as Topic,
        topicArn: subscription.topicArn,
        fifoTopic: localSns.topic(subscription.topicArn).fifo,
        queue,
        dlq: plan.queues.find((candidate) => candidate.arn === queue.redrive?.deadLetterTargetArn),
        poller,
      });
    }
    for (const wiring of wirings) {
      wiring.poller.start();
      cleanups.push(() => wiring.poller.stop());
    }
    for (const wiring of wirings) {
      const q = wiring.queue;
      progress.phase(
        `${wiring.stream}: ${q.fifo ? 'FIFO' : 'standard'} queue ${q.queueName}, visibility ${q.visibilityTimeoutSeconds} s (template; redelivery compressed locally), maxReceiveCount ${q.redrive?.maxReceiveCount ?? '-'}, batch ${wiring.poller.options.mapping.batchSize}, function timeout ${wiring.poller.options.fn.timeoutSeconds} s`,
      );
    }

    // ---- publish
    const sample: Sample | undefined = input
      ? undefined
      : (options.sample ?? generateSample({ seed, chargesPerAccountMonth: options.sampleSize }));
    const messages: SampleMessage[] = input ? input.messages : (sample as Sample).messages;
    if (input && input.skipped.length > 0)
      for (const problem of input.skipped.slice(0, 20))
        progress.phase(`--input line ${problem.line} skipped: ${problem.error}`);
    progress.phase(
      `publishing ${messages.length} messages (${input ? `from ${options.input}` : `sample, seed ${seed}`}) with faults ${Object.entries(
        faultRates,
      )
        .map(([k, v]) => `${k}=${v}`)
        .join(',')}…`,
    );
    const byTopic = new Map(wirings.map((wiring) => [wiring.topic, wiring]));
    let published = 0;
    const snapshot = (phase: string) => ({
      phase,
      published,
      total: messages.length,
      deliveries: wirings.reduce((sum, w) => sum + w.poller.stats.deliveries, 0),
      outcomes: Object.fromEntries(
        wirings.map((w) => [w.stream, { ...streamReport(w.stream, w.poller.stats) }]),
      ) as Record<string, Record<string, number>>,
      deadLetters: wirings.reduce(
        (sum, w) =>
          sum +
          w.poller.stats.outcomes.rejected +
          w.poller.stats.outcomes.conflict +
          w.poller.stats.exhausted,
        0,
      ),
    });
    const debug = process.env.BILLING_DEDUP_LOCAL_DEBUG === '1';
    let ticks = 0;
    const ticker = setInterval(() => {
      progress.update(snapshot(phase));
      if (debug && ++ticks % 10 === 0)
        process.stderr.write(
          `debug t=${Date.now() - started} published=${published} ${wirings.map((w) => `${w.stream} ${JSON.stringify(w.poller.debugState())} deliveries=${w.poller.stats.deliveries}`).join(' ')}\n`,
        );
    }, 100);
    cleanups.push(() => clearInterval(ticker));
    let phase = 'run';
    const started = Date.now();
    const settledOf = (wiring: StreamWiring) =>
      Object.values(wiring.poller.stats.outcomes).reduce((a, b) => a + b, 0) +
      wiring.poller.stats.exhausted;
    let cursor = 0;
    const unpublished: UnpublishedMessage[] = [];
    const publisher = async () => {
      while (cursor < messages.length) {
        if (signal?.aborted) throw new AbortedError();
        const index = cursor++;
        const message = messages[index];
        const wiring = byTopic.get(message.topic);
        if (!wiring) throw new Error(`no stream consumes topic ${message.topic}`);
        // Back-pressure: keep the emulator's queue shallow (it refuses receives past ~20,000 visible FIFO messages).
        while (published - settledOf(wiring) > 5000) await sleep(20, signal);
        try {
          const ids = wiring.fifoTopic ? publishIds(message) : undefined;
          await localSns.publish({
            topicArn: wiring.topicArn,
            message: message.message,
            attributes: message.attributes,
            ...(ids ? { groupId: ids.groupId, deduplicationId: ids.deduplicationId } : {}),
          });
          published++;
        } catch (error) {
          // What SNS refuses (too large, bad ids) is this message's problem, never the run's.
          const problem = unpublishedOf(index, message, error);
          unpublished.push(problem);
          if (unpublished.length <= 20)
            progress.phase(`not published: ${describeUnpublished(problem)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, publisher));
    unpublished.sort((a, b) => a.message - b.message);

    const drain = async () => {
      const deadline = Date.now() + (options.drainTimeoutMs ?? 10 * 60_000);
      let quiet = 0;
      while (quiet < 2) {
        await sleep(100, signal);
        if (Date.now() > deadline)
          throw new Error('the run did not drain in time (messages still in flight)');
        const idle = wirings.every((w) => w.poller.idle());
        const depths = idle
          ? await Promise.all(wirings.map((w) => queueDepth(pollerSqs, w.queue)))
          : [1];
        quiet = idle && depths.every((depth) => depth === 0) ? quiet + 1 : 0;
      }
    };
    await drain();
    const runMs = Date.now() - started;

    // ---- recovery: redrive with faults off, drain again
    const redriven: Record<string, number> = Object.fromEntries(wirings.map((w) => [w.stream, 0]));
    if (options.redrive) {
      phase = 'redrive';
      faults.disable();
      for (const wiring of wirings) {
        if (!wiring.dlq) continue;
        progress.phase(
          `redriving ${wiring.dlq.queueName} → ${wiring.queue.queueName} (faults off)…`,
        );
        const result = await redriveDlq({
          sqs: pollerSqs,
          dlqUrl: wiring.dlq.url,
          sourceQueueUrl: wiring.queue.url,
          pollMs: 250,
        });
        if (result.status === 'FAILED')
          throw new Error(`redrive of ${wiring.dlq.queueName} failed: ${result.failureReason}`);
        redriven[wiring.stream] = result.moved;
      }
      await drain();
    }
    clearInterval(ticker);
    progress.done();

    // ---- report
    const deadLetters: Record<string, DeadLetter[]> = {};
    for (const wiring of wirings)
      deadLetters[wiring.stream] = wiring.dlq ? await peekDeadLetters(pollerSqs, wiring.dlq) : [];
    const leftovers = await Promise.all(
      wirings.map(async (w) => [w.stream, await queueDepth(pollerSqs, w.queue)] as const),
    );
    const settled: Check = {
      name: 'settled',
      ok: leftovers.every(([, depth]) => depth === 0),
      detail: leftovers.every(([, depth]) => depth === 0)
        ? 'nothing left in a source queue or in flight'
        : leftovers.map(([stream, depth]) => `${stream}: ${depth} left`).join(', '),
    };
    const ledgerTable = plan.functions.map((fn) => fn.environment.LEDGER_TABLE_NAME).find(Boolean);
    const ledger = ledgerTable ? await readAllTotals(adminDynamo, ledgerTable) : [];
    const notificationTopics = new Set(
      plan.functions.map((fn) => fn.environment.NOTIFICATIONS_TOPIC_ARN).filter(Boolean),
    );
    const notifications = localSns.captured
      .filter((p) => notificationTopics.has(p.topicArn))
      .map(notificationOf);
    const skippedInput = input
      ? [
          ...input.skipped,
          ...unpublished.map((problem) => ({
            line: problem.line as number,
            error: `not published: ${problem.error}`,
          })),
        ].sort((a, b) => a.line - b.line)
      : [];
    const verdict = sample
      ? verdictAgainstTruth(sample.truth, ledger, notifications, deadLetters, settled, unpublished)
      : verdictWithoutTruth(deadLetters, settled, skippedInput);
    const runInfo: RunInfo = {
      mode: input ? 'input' : 'sample',
      seed,
      faults: faultRates,
      injected: { ...faults.injected },
      durationMs: runMs,
      eventsPerSecond: published / Math.max(0.001, runMs / 1000),
      unpublished,
      ...(input
        ? { input: { file: options.input as string, lines: input.lines, skipped: skippedInput } }
        : {}),
      streams: Object.fromEntries(
        wirings.map((w) => {
          const { mapping, fn, queue } = w.poller.options;
          const s = w.poller.stats;
          return [
            w.stream,
            {
              fifo: queue.fifo,
              batchSize: mapping.batchSize,
              maxBatchingWindowSeconds: mapping.maxBatchingWindowSeconds,
              maxConcurrency: mapping.maxConcurrency ?? 10,
              functionTimeoutSeconds: fn.timeoutSeconds,
              visibilityTimeoutSeconds: queue.visibilityTimeoutSeconds,
              maxReceiveCount: queue.redrive?.maxReceiveCount ?? null,
              lostAcks: s.lostAcks,
              timeouts: s.timeouts,
              exhausted: s.exhausted,
              invocations: s.invocations,
              emulatorDuplicates: s.emulatorDuplicates,
              heldBack: s.heldBack,
              awaitExpired: s.awaitExpired,
            },
          ];
        }),
      ),
    };
    const report: LocalReport = {
      published,
      streams: Object.fromEntries(
        wirings.map((w) => [w.stream, streamReport(w.stream, w.poller.stats)]),
      ),
      broker: {
        deliveries: wirings.reduce((sum, w) => sum + w.poller.stats.deliveries, 0),
        redeliveries: wirings.reduce((sum, w) => sum + w.poller.stats.redeliveries, 0),
        deduplicated: localSns.deduplicated,
      },
      deadLetters: Object.fromEntries(
        Object.entries(deadLetters).map(([stream, list]) => [stream, list.length]),
      ),
      ledger,
      notifications,
      redriven,
      verdict,
      run: runInfo,
    };

    if (options.keepRunning) {
      faults.disable();
      progress.phase(
        [
          'local environment running (faults off) — Ctrl-C to stop',
          `  DynamoDB Local  ${endpoints.dynamodb} (jvm pid ${dynamoDb.process.pid})`,
          `  SQS emulator    ${endpoints.sqs}`,
          `  SNS (Publish)   ${endpoints.sns}`,
          `  stack outputs   ${options.outputsFile === false ? '(not written)' : (options.outputsFile ?? '.local/stack-outputs.json')}`,
          '  e.g. BILLING_DEDUP_OUTPUTS_FILE=.local/stack-outputs.json npx billing-dedup ledger …',
        ].join('\n'),
      );
      await new Promise<void>((resolve) => {
        if (!signal || signal.aborted) return resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    return {
      report,
      exitCode: verdict.status === 'PASS' ? 0 : 1,
      deadLetters,
      environment: { endpoints, jvmPid: dynamoDb.process.pid },
    };
  } finally {
    await cleanup();
  }
};
