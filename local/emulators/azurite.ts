/**
 * The local Azure Blob Storage: Azurite's blob service (the official emulator, the `azurite` npm
 * package) as a child process on a free loopback port, its data in a temporary directory removed on
 * stop and at process exit. Clients use Azurite's well-known development account.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { freePort } from './local-aws';

/** Azurite's documented development account (the same for every Azurite). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface LocalAzurite {
  endpoint: string;
  client: BlobServiceClient;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

const accepting = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const startAzurite = async (
  options: { readyWithinMs?: number } = {},
): Promise<LocalAzurite> => {
  const port = await freePort();
  const location = mkdtempSync(join(tmpdir(), 'billing-dedup-azurite-'));
  const child = spawn(
    process.execPath,
    [
      require.resolve('azurite/dist/src/blob/main.js'),
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      String(port),
      '--location',
      location,
      '--silent',
      '--skipApiVersionCheck',
    ],
    { stdio: 'ignore' },
  );
  live.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const each of live) each.kill('SIGKILL');
    });
  }
  const stop = async (): Promise<void> => {
    if (live.delete(child) && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(location, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.readyWithinMs ?? 30_000);
  while (!(await accepting(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Azurite did not start on port ${port} (exit code ${child.exitCode})`);
    }
    await pause(100);
  }
  const endpoint = `http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`;
  const client = new BlobServiceClient(
    endpoint,
    new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY),
  );
  return { endpoint, client, stop };
};
