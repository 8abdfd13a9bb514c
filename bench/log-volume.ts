/**
 * `npx tsx bench/log-volume.ts [events]`: bytes of log output per event of the cost consumer at the
 * deployed log level (INFO), on the default workload against a DynamoDB Local this script starts. The
 * input of the CloudWatch Logs line of the capacity model in docs/benchmarks.md; Lambda's own
 * START/END/REPORT lines are not included.
 */
import { runImplementation } from './lib/harness';
import { withDynamoDb } from './lib/session';
import { DEFAULT_WORKLOAD, generateWorkload } from './lib/workload';

const main = async (events: number): Promise<void> => {
  process.env.AWS_REGION ??= 'us-east-1';
  const workload = generateWorkload({ ...DEFAULT_WORKLOAD, events });
  let bytes = 0;
  let lines = 0;
  // Lambda sends both streams to CloudWatch Logs (WARN and ERROR lines go to stderr).
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((stream) => stream.write.bind(stream));
  const result = await withDynamoDb(
    undefined,
    () => undefined,
    async (endpoint) => {
      process.stdout.write = (chunk: string | Uint8Array) => {
        bytes += Buffer.byteLength(chunk);
        lines += String(chunk).split('\n').length - 1;
        return true;
      };
      try {
        return await runImplementation({
          implementation: 'ours',
          queue: 'standard',
          workload,
          endpoint,
          consumers: 4,
          batchSize: 10,
          leaseMs: 30_000,
          retryDelayMs: 250,
          crashRedeliveryMs: 1200,
          maxReceives: 25,
          logLevel: 'INFO',
        });
      } finally {
        streams.forEach((stream, index) => (stream.write = writes[index]));
      }
    },
  );
  process.stdout.write(
    `${events} events, ${result.invocations} invocations: ${lines} log lines, ${bytes} bytes = ${(bytes / events).toFixed(0)} bytes per event\n`,
  );
};

main(Number(process.argv[2] ?? 2000)).catch((error) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
