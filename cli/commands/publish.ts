import { existsSync } from 'node:fs';
import { normalizeTenant } from '../../lambda/core/formats/scope';
import { EXIT, UsageError } from '../errors';
import { formatDuration, json, plural } from '../format';
import { countRecords, formatOf, readInput } from '../input';
import {
  PublishAbortedError,
  publishItems,
  publishTargetOf,
  type PublishSummary,
  type PublishTarget,
} from '../operations/publish';
import { createProgress } from '../progress';
import { resolvePath, type Stream } from '../resources';
import type { Session } from '../session';

export interface PublishFlags {
  input: string;
  format?: string;
  stream: Stream;
  rate?: number;
  tenant?: string;
  attribute?: string[];
  strict?: boolean;
  json?: boolean;
  progress?: boolean;
}

const parseAttributes = (pairs: string[] = []): Record<string, string> => {
  const attributes: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--attribute expects name=value (got "${pair}")`);
    attributes[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return attributes;
};

const renderSummary = (summary: PublishSummary, total: number, elapsedMs: number): string => {
  const lines: string[] = [];
  const rate = elapsedMs > 0 ? ((summary.published * 1000) / elapsedMs).toFixed(1) : '-';
  const topics = Object.entries(summary.perTopic)
    .map(([topic, count]) => `${count} → ${topic}`)
    .join('; ');
  lines.push(
    `Published ${summary.published} of ${plural(total, 'message')} in ${formatDuration(elapsedMs)} ` +
      `(${rate} msg/s, ${plural(summary.batches, 'batch', 'batches')}, ${plural(summary.retries, 'retry', 'retries')})` +
      (topics ? `: ${topics}` : ''),
  );
  if (summary.rejections.length > 0) {
    lines.push(`Rejected ${plural(summary.rejections.length, 'line')} (not published):`);
    for (const { line, reason } of summary.rejections) lines.push(`  line ${line}: ${reason}`);
  }
  if (summary.stoppedAtLine !== undefined) {
    lines.push(
      `Stopped at line ${summary.stoppedAtLine}: ${total - summary.processed} messages were not published. ` +
        'Rerunning the whole file is safe: duplicates change no ledger total.',
    );
  }
  return `${lines.join('\n')}\n`;
};

const tenantFlag = (value: string): string => {
  try {
    return normalizeTenant(value, '--tenant');
  } catch (error) {
    throw new UsageError(`--tenant ${JSON.stringify(value)}: ${(error as Error).message}`);
  }
};

/**
 * `billing-dedup publish`: exit 0 all published, 3 some lines rejected, 1/2 on errors. With `--tenant` and
 * a stage that has tenant topics, cost events go to that tenant's topic (docs/threat-model.md).
 */
export const publishCommand = async (flags: PublishFlags, session: Session): Promise<number> => {
  const { io, resources } = session;
  const path = resolvePath(io.cwd, flags.input);
  if (!existsSync(path)) throw new UsageError(`Input file ${flags.input} not found: fix --input`);
  if (session.localEndpoints && !session.localEndpoints.sns && !resources.flags.topic) {
    throw new UsageError(
      'The local run has no SNS endpoint to publish to: feed the file to it with `npm start -- --input FILE`, ' +
        'or pass --topic with AWS_ENDPOINT_URL_SNS pointing at an SNS emulator',
    );
  }
  const format = formatOf(path, flags.format);
  const tenant = flags.tenant === undefined ? undefined : tenantFlag(flags.tenant);
  const defaultAttributes = {
    ...(tenant ? { tenant } : {}),
    ...parseAttributes(flags.attribute),
  };
  const targets = new Map<Stream | undefined, Promise<PublishTarget>>();
  const topicOf = (stream: Stream) => publishTargetOf(resources, stream, tenant);
  const targetFor = (stream: Stream | undefined): Promise<PublishTarget> => {
    const effective = stream ?? flags.stream;
    let target = targets.get(effective);
    if (!target) {
      target = topicOf(effective);
      targets.set(effective, target);
    }
    return target;
  };
  await targetFor(undefined); // fail fast on a missing topic or unknown stack

  const total = await countRecords(path, format);
  const started = session.now();
  const progress = createProgress(io.stderr, {
    label: 'publish',
    unit: 'msg',
    total,
    now: session.now,
    silent: flags.json || flags.progress === false,
  });
  let summary: PublishSummary;
  let failure: Error | undefined;
  try {
    summary = await publishItems(readInput(path, format), {
      sns: session.clients.sns,
      targetFor,
      rate: flags.rate,
      strict: flags.strict,
      defaultAttributes,
      now: session.now,
      sleep: session.sleep,
      onProgress: (p) =>
        progress.update(p.processed, undefined, p.rejected ? `rejected ${p.rejected}` : ''),
    });
  } catch (error) {
    if (!(error instanceof PublishAbortedError)) throw error;
    summary = error.summary;
    failure = error.cause as Error;
  } finally {
    progress.stop();
  }
  const elapsed = session.now() - started;
  if (flags.json) {
    io.stdout.write(
      json({
        input: flags.input,
        format,
        total,
        published: summary.published,
        rejected: summary.rejections,
        batches: summary.batches,
        retries: summary.retries,
        perTopic: summary.perTopic,
        durationMs: elapsed,
        ...(summary.stoppedAtLine !== undefined ? { stoppedAtLine: summary.stoppedAtLine } : {}),
      }),
    );
  } else {
    io.stdout.write(renderSummary(summary, total, elapsed));
  }
  if (failure !== undefined) throw failure;
  return summary.rejections.length > 0 ? EXIT.rejectedLines : EXIT.ok;
};
