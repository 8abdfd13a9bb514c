import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ENV } from '../../contract/environment';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../test/support/dynamodb-local';
import { ROOT } from './bundle';

export type BenchLog = (message: string) => void;

/** A `[label  12s] message` logger on stderr, silent when `quiet`. */
export const benchLogger = (label: string, quiet: boolean, began: number): BenchLog => {
  return (message) => {
    if (!quiet)
      process.stderr.write(
        `[${label} ${((Date.now() - began) / 1000).toFixed(0).padStart(4)}s] ${message}\n`,
      );
  };
};

/** Handlers under measurement neither log nor emit metrics. */
export const quietHandlers = (): void => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env[ENV.logLevel] = 'SILENT';
  process.env.AWS_REGION ??= 'us-east-1';
};

/**
 * Runs `body` against `endpoint`, or against a DynamoDB Local started for it (and stopped afterwards,
 * also on SIGINT/SIGTERM) when there is none.
 */
export const withDynamoDb = async <T>(
  endpoint: string | undefined,
  log: BenchLog,
  body: (endpoint: string) => Promise<T>,
): Promise<T> => {
  if (!endpoint) log('starting DynamoDB Local');
  let local: DynamoDbLocal | undefined = endpoint ? undefined : await startDynamoDbLocal();
  const stop = async () => {
    const running = local;
    local = undefined;
    await running?.stop();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    void stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await body(endpoint ?? (local as DynamoDbLocal).endpoint);
  } finally {
    await stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
};

/** The command line that produced a report, as a reader would type it. */
export const benchCommand = (): string =>
  `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;

/** Generated files pass the repository's `prettier --check` (prettier is a dev dependency). */
const formatted = async (text: string, parser: 'json' | 'markdown'): Promise<string> => {
  try {
    const prettier = await import('prettier');
    const config = (await prettier.resolveConfig(path.join(ROOT, 'package.json'))) ?? {};
    return await prettier.format(text, { ...config, parser });
  } catch {
    return text;
  }
};

/** Writes `<name>.json` and `<name>.md` under `out`, both formatted. */
export const writeJsonAndMarkdown = async (
  out: string,
  name: string,
  report: unknown,
  markdown: string,
): Promise<void> => {
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, `${name}.json`),
    await formatted(`${JSON.stringify(report, null, 2)}\n`, 'json'),
  );
  writeFileSync(path.join(out, `${name}.md`), await formatted(markdown, 'markdown'));
};
