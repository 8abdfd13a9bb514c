/**
 * No emulator outlives a run: after a normal run, an error, Ctrl-C (SIGINT to `node local/start.js`) and
 * a SIGKILL of the run, the DynamoDB Local JVM the run started is gone and nothing listens on its port
 * any more.
 */
import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { readFileSync, readdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runLocal, type LocalEnvironment } from '../../local/phases/run-local';

const ROOT = path.resolve(__dirname, '..', '..');

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Resolves once nothing accepts connections on the port. */
const portClosed = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

const javaOnPort = (port: number): boolean => {
  // /proc: any java process whose command line names this port.
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .some((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return (
          cmd[0].endsWith('java') &&
          cmd.includes('-port') &&
          cmd[cmd.indexOf('-port') + 1] === String(port)
        );
      } catch {
        return false;
      }
    });
};

const expectStopped = async (environment: {
  jvmPid: number;
  dynamoPort: number;
  sqsPort: number;
}) => {
  expect(alive(environment.jvmPid)).toBe(false);
  expect(javaOnPort(environment.dynamoPort)).toBe(false);
  expect(await portClosed(environment.dynamoPort)).toBe(true);
  expect(await portClosed(environment.sqsPort)).toBe(true);
};

const empty = {
  messages: [],
  truth: {
    ledger: [],
    notificationKeys: [],
    deadLetters: { 'cost-events': 0, 'budget-alerts': 0 },
    conflicts: [],
  },
};

it('stops the emulators after a normal run', async () => {
  let seen: LocalEnvironment | undefined;
  await runLocal({
    outputsFile: false,
    handlerLogFile: false,
    sample: empty,
    acquisitions: false,
    onEnvironment: (env) => (seen = env),
  });
  const env = seen as LocalEnvironment;
  await expectStopped({
    jvmPid: env.dynamo.process.pid as number,
    dynamoPort: env.dynamo.port,
    sqsPort: env.sqs.port,
  });
}, 90_000);

it('stops the emulators when the run fails', async () => {
  let seen: LocalEnvironment | undefined;
  await expect(
    runLocal({
      outputsFile: false,
      handlerLogFile: false,
      sample: { ...empty, messages: [{ topic: 'nowhere' as never, message: '{}' }] },
      acquisitions: false,
      onEnvironment: (env) => (seen = env),
    }),
  ).rejects.toThrow(/no stream consumes topic nowhere/);
  const env = seen as LocalEnvironment;
  await expectStopped({
    jvmPid: env.dynamo.process.pid as number,
    dynamoPort: env.dynamo.port,
    sqsPort: env.sqs.port,
  });
}, 90_000);

/** `node local/start.js --input … --keep-running`, once it printed its endpoints. */
const startKeepRunning = async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'billing-dedup-sigint-'));
  const input = path.join(dir, 'input.jsonl');
  writeFileSync(
    input,
    `${JSON.stringify({ topic: 'cost-events', message: { hello: 'world' } })}\n`,
  );
  const child = spawn(process.execPath, ['local/start.js', '--input', input, '--keep-running'], {
    cwd: ROOT,
    env: { ...process.env, CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const deadline = Date.now() + 200_000;
  while (!/local environment running/.test(stderr)) {
    if (Date.now() > deadline) {
      // Stop the run (it stops its emulators on SIGINT) so a slow start leaves nothing running.
      child.kill('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
      throw new Error(`no ready line: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, exited, stderr };
};

const waitUntil = async (condition: () => boolean, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
};

/** Processes whose command line contains every one of the fragments. */
const processesWith = (...fragments: string[]): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return fragments.every((fragment) => cmd.includes(fragment));
      } catch {
        return false;
      }
    })
    .map(Number);

it('stops the emulators on Ctrl-C (SIGINT to node local/start.js --keep-running)', async () => {
  const { child, exited, stderr } = await startKeepRunning();
  // The environment is up (it printed the endpoints): interrupt.
  const dynamoPort = Number(/DynamoDB Local\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1]);
  const sqsPort = Number(/SQS emulator\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1]);
  const outputs = JSON.parse(readFileSync(path.join(ROOT, '.local', 'stack-outputs.json'), 'utf8'));
  expect(outputs.endpoints.dynamodb).toBe(`http://127.0.0.1:${dynamoPort}`);
  const jvmPid = Number(/jvm pid (\d+)/.exec(stderr)?.[1]);
  expect(alive(jvmPid)).toBe(true);
  child.kill('SIGINT');
  // Ctrl-C is how a --keep-running session ends: the exit code is the verdict's (the poison message
  // settled in the DLQ with its reason: PASS).
  expect(await exited).toBe(0);
  await expectStopped({ jvmPid, dynamoPort, sqsPort });
}, 300_000);

it('kills the DynamoDB Local JVM when the run itself is SIGKILLed (no exit hook runs)', async () => {
  const { child, exited, stderr } = await startKeepRunning();
  const jvmPid = Number(/jvm pid (\d+)/.exec(stderr)?.[1]);
  const dynamoPort = Number(/DynamoDB Local\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1]);
  expect(alive(jvmPid)).toBe(true);
  child.kill('SIGKILL');
  await exited;
  try {
    expect(await waitUntil(() => !alive(jvmPid), 15_000)).toBe(true);
    expect(javaOnPort(dynamoPort)).toBe(false);
    // The watchdog that killed it is gone too.
    expect(
      await waitUntil(() => processesWith('killJvm', String(jvmPid)).length === 0, 5_000),
    ).toBe(true);
  } finally {
    if (alive(jvmPid)) process.kill(jvmPid, 'SIGKILL');
  }
}, 300_000);
