/**
 * Runs one implementation over one workload against DynamoDB Local: fresh tables, `consumers`
 * execution environments each polling the simulated queue and invoking its own handler instance (one
 * invocation at a time per environment, as in Lambda), redelivery of unacknowledged records, optional
 * crash injection. Returns timing, DynamoDB requests and capacity, and the correctness assessment.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  DEFAULT_DEDUP_TTL_SECONDS,
  DEFAULT_MAX_CONCURRENCY,
  consumerEnvironment,
} from '../../contract/environment';
import { COST_STREAM } from '../../contract/streams';
import { readAllTotals } from '../../lambda/adapters/ledger-reader';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import { createLedgerTables } from '../../test/support/aws-local';
import { lambdaContext } from '../../local/runtime/lambda-sim';
import { createBaselineHandler } from '../baseline/cost-ledger-baseline';
import {
  InjectedCrash,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  Meter,
  meteredDynamo,
  type FaultState,
} from './meter';
import { SimulatedQueue, type QueueEntry } from './queue';
import { assessCorrectness, type Correctness } from './verify';
import { mulberry32 } from '../../local/scenarios/random';
import type { Workload } from './workload';

export type ImplementationName = 'ours' | 'baseline';
export type QueueKind = 'standard' | 'fifo';
type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface Clients {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
}

export const IMPLEMENTATIONS: Record<
  ImplementationName,
  (env: NodeJS.ProcessEnv, clients: Clients) => Handler
> = {
  // The context goes through: the handler bounds its contention retries by the remaining time.
  ours: (env, clients) => createCostLedgerHandler(env, clients),
  baseline: (env, clients) => createBaselineHandler(env, clients),
};

export interface CrashPlan {
  /** `ack-lost`: the invocation's effects all happen, its response is lost, the whole batch comes back.
   * `mid-batch`: the process dies right after the k-th successful DynamoDB write of the invocation. */
  mode: 'ack-lost' | 'mid-batch';
  /** Share of invocations that crash. */
  rate: number;
  /** mid-batch: k is uniform in 1..writesPerInvocation (measured on a fault-free run). */
  writesPerInvocation: number;
  seed: number;
}

export interface RunOptions {
  implementation: ImplementationName;
  queue: QueueKind;
  workload: Workload;
  endpoint: string;
  /** Execution environments polling concurrently. */
  consumers: number;
  batchSize: number;
  /** Remaining time the Lambda context reports (= the Powertools in-progress lease). */
  leaseMs: number;
  /** Compressed visibility timeout for records reported as failed. */
  retryDelayMs: number;
  /** Compressed visibility timeout for the batch of a crashed invocation (≥ leaseMs). */
  crashRedeliveryMs: number;
  maxReceives: number;
  crash?: CrashPlan;
  /** The handlers' log level (SILENT unless a run measures the logs). */
  logLevel?: 'SILENT' | 'INFO';
}

export interface RunResult {
  implementation: ImplementationName;
  queue: QueueKind;
  events: number;
  wallMs: number;
  eventsPerSecond: number;
  invocations: number;
  receives: number;
  crashes: number;
  /** Invocations that ran longer than the lease (a real Lambda would have timed out). */
  overLease: number;
  /** Records that exhausted maxReceives (SQS would redrive them to the DLQ). */
  redriven: number;
  dlqSends: number;
  requests: Record<string, number>;
  totalRequests: number;
  reportedRcu: number;
  reportedWcu: number;
  billedRcu: number;
  billedWcu: number;
  cancelledTransactionWcu: number;
  failedConditionalWrites: number;
  cancelledTransactions: number;
  /** Cancelled by contention alone (TransactionConflict, no condition failed). */
  contendedTransactions: number;
  /** Cancelled transactions by the set of reason codes DynamoDB gave. */
  cancellationReasons: Record<string, number>;
  /** CPU time of this process (user + system) while at least one invocation was running, ms. */
  handlerCpuMs: number;
  writesPerInvocation: number;
  correctness: Correctness;
}

const contextFor = (leaseMs: number, requestId: string): Context =>
  lambdaContext({
    functionName: 'cost-ledger-bench',
    memoryMb: 1024,
    deadline: Date.now() + leaseMs,
    requestId,
    logStreamName: 'bench',
  });

/** An SQS client whose SendMessage never leaves the process: the DLQ is a counting stub. */
const dlqStub = (counter: { sends: number }, fault: FaultState): SQSClient => {
  const client = new SQSClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: 'http://127.0.0.1:9',
  });
  client.middlewareStack.add(
    () => () => {
      if (fault.dead) return Promise.reject(new InjectedCrash());
      counter.sends++;
      return Promise.resolve({
        output: { MessageId: `dlq-${counter.sends}`, $metadata: {} },
        response: {},
      });
    },
    { step: 'initialize', name: 'dlqStub' },
  );
  return client;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const runImplementation = async (options: RunOptions): Promise<RunResult> => {
  const meter = new Meter();
  const admin = meteredDynamo(options.endpoint, new Meter(), () => '');
  const tables = await createLedgerTables(admin);
  const env: NodeJS.ProcessEnv = {
    ...consumerEnvironment({
      streamName: COST_STREAM,
      queueKind: options.queue,
      dlqUrl: `https://sqs.us-east-1.amazonaws.com/123456789012/${COST_STREAM}-dlq${options.queue === 'fifo' ? '.fifo' : ''}`,
      dedupTableName: tables.dedupTable,
      ledgerTableName: tables.ledgerTable,
      dedupTtlSeconds: DEFAULT_DEDUP_TTL_SECONDS,
      maxConcurrency: DEFAULT_MAX_CONCURRENCY,
      logLevel: options.logLevel ?? 'SILENT',
      serviceName: 'cost-ledger-bench',
    }),
    // Metrics (EMF lines on stdout) only when the logs are measured: they are log volume too.
    POWERTOOLS_METRICS_DISABLED: options.logLevel === 'INFO' ? 'false' : 'true',
  };
  const queue = new SimulatedQueue(options.workload.deliveries, options.queue === 'fifo');
  const dlq = { sends: 0 };
  const random = mulberry32(options.crash?.seed ?? 1);
  const stats = { invocations: 0, receives: 0, crashes: 0, overLease: 0, redriven: 0, writes: 0 };
  const clients: DynamoDBClient[] = [];

  const environment = () => {
    const fault: FaultState = { writes: 0, dead: false };
    const dynamo = meteredDynamo(options.endpoint, meter, () => tables.ledgerTable, fault);
    clients.push(dynamo);
    return {
      fault,
      handler: IMPLEMENTATIONS[options.implementation](env, { dynamo, sqs: dlqStub(dlq, fault) }),
    };
  };

  // CPU is sampled when the first invocation starts and the last one ends, never per invocation: the
  // invocations overlap in this process and per-invocation deltas would count the same time twice.
  const cpu = { running: 0, since: process.cpuUsage(), micros: 0 };
  const invocationStarts = () => {
    if (cpu.running++ === 0) cpu.since = process.cpuUsage();
  };
  const invocationEnds = () => {
    if (--cpu.running > 0) return;
    const used = process.cpuUsage(cpu.since);
    cpu.micros += used.user + used.system;
  };

  const consumer = async (index: number) => {
    let current = environment();
    for (;;) {
      const batch: QueueEntry[] = queue.receive(options.batchSize);
      if (batch.length === 0) {
        if (queue.drained) return;
        const wait = queue.nextVisibleAt() - Date.now();
        await sleep(Math.min(Math.max(wait, 1), 20));
        continue;
      }
      stats.invocations++;
      stats.receives += batch.length;
      const crash = options.crash && random() < options.crash.rate ? options.crash : undefined;
      current.fault.writes = 0;
      current.fault.crashAfterWrite =
        crash?.mode === 'mid-batch'
          ? 1 + Math.floor(random() * Math.max(1, Math.round(crash.writesPerInvocation)))
          : undefined;
      const started = Date.now();
      let response: SQSBatchResponse | undefined;
      invocationStarts();
      try {
        response = await current.handler(
          { Records: batch.map((entry) => entry.record) },
          contextFor(options.leaseMs, `${index}-${stats.invocations}`),
        );
      } catch {
        response = undefined; // a thrown invocation: Lambda retries the whole batch
      } finally {
        invocationEnds();
      }
      if (Date.now() - started > options.leaseMs) stats.overLease++;
      stats.writes += current.fault.writes;
      const died = current.fault.dead || crash?.mode === 'ack-lost';
      let retry: Set<string>;
      if (died || !response) {
        retry = new Set(batch.map((entry) => entry.record.messageId));
      } else {
        retry = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
      }
      for (const entry of batch) {
        if (retry.has(entry.record.messageId) && entry.receives >= options.maxReceives) {
          retry.delete(entry.record.messageId);
          stats.redriven++;
        }
      }
      queue.settle(batch, retry, died ? options.crashRedeliveryMs : options.retryDelayMs);
      if (died) {
        stats.crashes++;
        current = environment();
      }
    }
  };

  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: options.consumers }, (_, index) => consumer(index)));
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;

  const ledger = await readAllTotals(admin, tables.ledgerTable);
  const correctness = assessCorrectness(
    options.workload,
    meter.journal,
    ledger.map((total) => ({
      pk: `TENANT#${total.tenant}#ACCOUNT#${total.accountId}#PERIOD#${total.period}`,
      currency: total.currency,
      total: total.total,
      charges: total.charges,
    })),
  );
  for (const client of clients) client.destroy();
  admin.destroy();
  const events = options.workload.deliveries.length;
  return {
    implementation: options.implementation,
    queue: options.queue,
    events,
    wallMs,
    eventsPerSecond: events / (wallMs / 1000),
    invocations: stats.invocations,
    receives: stats.receives,
    crashes: stats.crashes,
    overLease: stats.overLease,
    redriven: stats.redriven,
    dlqSends: dlq.sends,
    requests: meter.byOperation(),
    totalRequests: meter.totalRequests(),
    reportedRcu: meter.reportedRcu,
    reportedWcu: meter.reportedWcu,
    billedRcu: meter.billedRcu,
    billedWcu: meter.billedWcu,
    cancelledTransactionWcu: meter.cancelledTransactionWcu,
    failedConditionalWrites: meter.failedConditionalWrites,
    cancelledTransactions: meter.cancelledTransactions,
    contendedTransactions: meter.contendedTransactions,
    cancellationReasons: Object.fromEntries([...meter.cancellationReasons.entries()].sort()),
    handlerCpuMs: cpu.micros / 1000,
    writesPerInvocation: stats.invocations > 0 ? stats.writes / stats.invocations : 0,
    correctness,
  };
};
