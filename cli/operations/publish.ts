/**
 * Publishing input messages to SNS: client-side validation and FIFO ids (from the consumer's own parser and
 * key code), PublishBatch of ≤10 entries and ≤256 KiB, a rate limit, retries with backoff on throttling —
 * whole-request errors and per-entry `Failed` results alike. No printing here: progress goes to a callback.
 */
import {
  PublishBatchCommand,
  type MessageAttributeValue,
  type PublishBatchRequestEntry,
  type SNSClient,
} from '@aws-sdk/client-sns';
import { ALERT_STREAM, COST_STREAM } from '../../contract/streams';
import { decodeRecord } from '../../lambda/core/envelope';
import { ValidationError } from '../../lambda/core/errors';
import { parseAlertEvent, parseCostEvent } from '../../lambda/core/formats';
import { fifoPublishIds } from '../../lambda/core/keys';
import { CliError, describeError, EXIT, isRetryable, isThrottling } from '../errors';
import type { InputItem, InputMessage } from '../input';
import type { Resources, Stream } from '../resources';

export const MAX_BATCH_ENTRIES = 10;
/** SNS limit for one message and for the sum of a PublishBatch request. */
export const MAX_PUBLISH_BYTES = 262_144;

export interface PublishTarget {
  topicArn: string;
  fifo: boolean;
  /** Which parser validates the message (`--strict`, FIFO ids); undefined when unknown. */
  stream?: Stream;
  /** The tenant whose own topic this is (`publish --tenant` on a stage with tenant topics). */
  tenant?: string;
}

export interface PreparedMessage {
  line: number;
  topicArn: string;
  entry: PublishBatchRequestEntry;
  bytes: number;
}

export interface PrepareOptions {
  /** Validate messages for standard topics too (FIFO topics always need a parsed event for the ids). */
  strict?: boolean;
  /** Attributes added to every message (e.g. `tenant`), unless the line sets them itself. */
  defaultAttributes?: Record<string, string>;
}

const rejectionReason = (error: unknown): string =>
  error instanceof ValidationError ? error.message : `invalid: ${String(error)}`;

const sqsLikeAttributes = (attributes: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      { stringValue: value, dataType: 'String' },
    ]),
  );

/**
 * An explicit groupId for a cost event on a FIFO topic must be the group the consumer checks
 * (`fifoGroupId` of its tenant and account); any other would only land in the DLQ as `group-mismatch`.
 */
const groupMismatch = (
  record: Parameters<typeof decodeRecord>[0],
  groupId: string,
): string | undefined => {
  let expected: string;
  try {
    expected = fifoPublishIds(parseCostEvent(decodeRecord(record)).event).messageGroupId;
  } catch {
    return undefined;
  }
  return groupId === expected
    ? undefined
    : `groupId ${JSON.stringify(groupId)} is not the message group the consumer requires for this ` +
        `event (${JSON.stringify(expected)}); leave groupId out to derive it`;
};

/**
 * Message → PublishBatch entry, or the reason it is rejected client-side.
 * FIFO topic: group and dedup ids are `fifoPublishIds` of the event the consumer will parse (explicit ids of
 * a local-run line win; with both given the message is published unparsed, as the line's author asked).
 * Standard topic: published as is unless `strict` (the consumer is the judge; poison goes to the DLQ).
 */
export const prepareMessage = (
  message: InputMessage,
  target: PublishTarget,
  options: PrepareOptions = {},
): { ok: true; prepared: PreparedMessage } | { ok: false; reason: string } => {
  const attributes = { ...options.defaultAttributes, ...message.attributes };
  const record = { body: message.body, messageAttributes: sqsLikeAttributes(attributes) };
  const stream = message.stream ?? target.stream;
  let ids: { messageGroupId: string; messageDeduplicationId: string } | undefined;
  try {
    if (target.fifo && !(message.groupId && message.deduplicationId)) {
      if (stream === ALERT_STREAM)
        return { ok: false, reason: 'a FIFO topic needs groupId and deduplicationId for alerts' };
      ids = fifoPublishIds(parseCostEvent(decodeRecord(record)).event);
    } else if (options.strict && stream === COST_STREAM) {
      parseCostEvent(decodeRecord(record));
    } else if (options.strict && stream === ALERT_STREAM) {
      parseAlertEvent(decodeRecord(record));
    }
  } catch (error) {
    return { ok: false, reason: rejectionReason(error) };
  }
  const mismatch =
    target.fifo && stream !== ALERT_STREAM && message.groupId
      ? groupMismatch(record, message.groupId)
      : undefined;
  if (mismatch) return { ok: false, reason: mismatch };
  const messageAttributes: Record<string, MessageAttributeValue> = Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      { DataType: 'String', StringValue: value },
    ]),
  );
  const bytes =
    Buffer.byteLength(message.body, 'utf8') +
    Object.entries(attributes).reduce(
      (sum, [name, value]) => sum + Buffer.byteLength(name) + 6 + Buffer.byteLength(value),
      0,
    );
  if (bytes > MAX_PUBLISH_BYTES)
    return {
      ok: false,
      reason: `message is ${bytes} bytes; SNS accepts at most ${MAX_PUBLISH_BYTES}`,
    };
  if (Object.keys(attributes).length > 10)
    return { ok: false, reason: 'more than 10 message attributes (SNS limit)' };
  const entry: PublishBatchRequestEntry = {
    Id: `line-${message.line}`,
    Message: message.body,
    ...(Object.keys(messageAttributes).length ? { MessageAttributes: messageAttributes } : {}),
    ...(target.fifo
      ? {
          MessageGroupId: message.groupId ?? ids?.messageGroupId,
          MessageDeduplicationId: message.deduplicationId ?? ids?.messageDeduplicationId,
        }
      : {}),
  };
  return { ok: true, prepared: { line: message.line, topicArn: target.topicArn, entry, bytes } };
};

/** Spaces sends so that on average at most `rate` messages per second leave; the first batch goes at once. */
export class RateLimiter {
  private next = 0;
  constructor(
    private readonly rate: number | undefined,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  async take(messages: number): Promise<void> {
    if (!this.rate) return;
    const current = this.now();
    if (this.next > current) await this.sleep(this.next - current);
    this.next = Math.max(this.next, current) + (messages * 1000) / this.rate;
  }
}

export interface PublishProgress {
  /** Lines finished (published or rejected). */
  processed: number;
  published: number;
  rejected: number;
  retries: number;
}

export interface PublishSummary extends PublishProgress {
  rejections: { line: number; reason: string }[];
  batches: number;
  perTopic: Record<string, number>;
  /** Set when the run stopped early (persistent throttling, access denied…): the first line not published. */
  stoppedAtLine?: number;
}

export interface PublishOptions extends PrepareOptions {
  sns: SNSClient;
  /** Destination of a message: by the line's stream (undefined = the default stream). */
  targetFor: (stream: Stream | undefined) => Promise<PublishTarget>;
  /** Messages per second; undefined = as fast as SNS takes them. */
  rate?: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Attempts per batch before giving up on throttling (default 8). */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  random?: () => number;
  onProgress?: (progress: PublishProgress) => void;
}

/** The run stopped early; `cause` is what stopped it, `summary` what was done until then. */
export class PublishAbortedError extends Error {
  constructor(
    readonly summary: PublishSummary,
    readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'PublishAbortedError';
  }
}

/** Full-jitter exponential backoff: random in [0, min(max, base·2^attempt)], at least base/2. */
export const backoffDelay = (
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number,
): number => Math.max(baseMs / 2, Math.min(maxMs, baseMs * 2 ** attempt) * random());

class Publisher {
  readonly summary: PublishSummary = {
    processed: 0,
    published: 0,
    rejected: 0,
    retries: 0,
    rejections: [],
    batches: 0,
    perTopic: {},
  };
  private readonly pending = new Map<string, PreparedMessage[]>();
  private readonly limiter: RateLimiter;
  private readonly batchSize: number;

  constructor(private readonly options: PublishOptions) {
    this.limiter = new RateLimiter(options.rate, options.now, options.sleep);
    // A slow rate gets smaller batches, so messages leave evenly instead of in bursts of ten.
    this.batchSize = options.rate
      ? Math.max(1, Math.min(MAX_BATCH_ENTRIES, Math.floor(options.rate)))
      : MAX_BATCH_ENTRIES;
  }

  private progress(): void {
    this.options.onProgress?.({
      processed: this.summary.processed,
      published: this.summary.published,
      rejected: this.summary.rejected,
      retries: this.summary.retries,
    });
  }

  reject(line: number, reason: string): void {
    this.summary.rejected += 1;
    this.summary.processed += 1;
    this.summary.rejections.push({ line, reason });
    this.progress();
  }

  async add(prepared: PreparedMessage): Promise<void> {
    const queue = this.pending.get(prepared.topicArn) ?? [];
    const bytes = queue.reduce((sum, item) => sum + item.bytes, 0);
    if (queue.length > 0 && bytes + prepared.bytes > MAX_PUBLISH_BYTES)
      await this.flushTopic(prepared.topicArn);
    const current = this.pending.get(prepared.topicArn) ?? [];
    current.push(prepared);
    this.pending.set(prepared.topicArn, current);
    if (current.length >= this.batchSize) await this.flushTopic(prepared.topicArn);
  }

  async flush(): Promise<void> {
    for (const topicArn of [...this.pending.keys()]) await this.flushTopic(topicArn);
  }

  /** Lowest line number still waiting (for the "stopped at" hint). */
  firstPendingLine(): number | undefined {
    const lines = [...this.pending.values()].flat().map((item) => item.line);
    return lines.length ? Math.min(...lines) : undefined;
  }

  private async flushTopic(topicArn: string): Promise<void> {
    const batch = this.pending.get(topicArn) ?? [];
    if (batch.length === 0) return;
    await this.send(topicArn, batch);
    this.pending.delete(topicArn);
  }

  private async send(topicArn: string, batch: PreparedMessage[]): Promise<void> {
    const {
      maxAttempts = 8,
      baseDelayMs = 200,
      maxDelayMs = 20_000,
      random = Math.random,
    } = this.options;
    let pending = batch;
    let attempt = 0;
    const backoff = async (why: string) => {
      attempt += 1;
      if (attempt >= maxAttempts) {
        const throttled = /thrott/i.test(why);
        throw new CliError(
          `${throttled ? 'Throttled by SNS' : 'SNS kept failing'} (${why}) after ${attempt} attempts: ` +
            (throttled
              ? 'lower --rate or retry later (request a quota increase if it persists); '
              : 'retry later; ') +
            'rerunning the whole file is safe (duplicates are no-ops)',
        );
      }
      this.summary.retries += 1;
      await this.options.sleep(backoffDelay(attempt, baseDelayMs, maxDelayMs, random));
    };
    while (pending.length > 0) {
      await this.limiter.take(pending.length);
      let result;
      try {
        result = await this.options.sns.send(
          new PublishBatchCommand({
            TopicArn: topicArn,
            PublishBatchRequestEntries: pending.map((item) => item.entry),
          }),
        );
      } catch (error) {
        if (!isRetryable(error)) throw publishDenied(error, topicArn) ?? error;
        await backoff((error as Error).name ?? 'error');
        continue;
      }
      this.summary.batches += 1;
      const byId = new Map(pending.map((item) => [item.entry.Id as string, item]));
      const succeeded = result.Successful?.length ?? 0;
      this.summary.published += succeeded;
      this.summary.processed += succeeded;
      this.summary.perTopic[topicArn] = (this.summary.perTopic[topicArn] ?? 0) + succeeded;
      const retry: PreparedMessage[] = [];
      let retryCode = '';
      for (const failed of result.Failed ?? []) {
        const item = byId.get(failed.Id ?? '');
        if (!item) continue;
        const code = failed.Code ?? 'Failed';
        if (!failed.SenderFault || isThrottling({ name: code })) {
          retry.push(item);
          retryCode ||= code;
        } else {
          this.summary.rejected += 1;
          this.summary.processed += 1;
          this.summary.rejections.push({
            line: item.line,
            reason: `SNS rejected it: ${code}${failed.Message ? `: ${failed.Message}` : ''}`,
          });
        }
      }
      this.progress();
      pending = retry;
      if (pending.length > 0) await backoff(retryCode);
    }
  }
}

/**
 * Access denied on a publish whose error does not name the topic, with the permission and the topic
 * named: `sns:Publish` on the topic (the
 * caller's IAM policy and the topic policy: a tenant topic admits only that tenant's publishers), or the
 * messaging key's `kms:GenerateDataKey` and `kms:Decrypt` when KMS refused. Undefined for other errors.
 */
export const publishDenied = (error: unknown, topicArn: string): CliError | undefined => {
  const { message } = describeError(error);
  // AWS's own message already names the action and the topic when it gives them.
  if (!message.startsWith('Access denied') || message.includes(topicArn)) return undefined;
  const name = (error as { name?: unknown })?.name;
  const kms = typeof name === 'string' && /^KMS/i.test(name);
  return new CliError(
    kms
      ? `Access denied: missing permission kms:GenerateDataKey and kms:Decrypt on the messaging key ` +
          `(stack output MessagingKeyArn), needed to publish to ${topicArn}; grant them to the role or user you are using`
      : `Access denied: missing permission sns:Publish on ${topicArn}; grant it to the role or user you are ` +
          'using, and make sure the topic policy admits it (a tenant topic admits only the publishers in that ' +
          'tenant’s `tenants[].publishers`)',
    EXIT.operational,
  );
};

/**
 * Publishes every message of `items`; rejected lines are counted and listed, never fatal. Throws
 * `PublishAbortedError` (carrying the summary so far) when SNS cannot be made to take a batch.
 */
export const publishItems = async (
  items: AsyncIterable<InputItem> | Iterable<InputItem>,
  options: PublishOptions,
): Promise<PublishSummary> => {
  const publisher = new Publisher(options);
  let currentLine: number | undefined;
  try {
    for await (const item of items) {
      if (item.kind === 'rejected') {
        currentLine = item.line;
        publisher.reject(item.line, item.reason);
        continue;
      }
      currentLine = item.message.line;
      const target = await options.targetFor(item.message.stream);
      const prepared = prepareMessage(item.message, target, options);
      if (prepared.ok) await publisher.add(prepared.prepared);
      else publisher.reject(item.message.line, prepared.reason);
    }
    await publisher.flush();
  } catch (error) {
    const summary = {
      ...publisher.summary,
      stoppedAtLine: publisher.firstPendingLine() ?? currentLine,
    };
    throw new PublishAbortedError(summary, error);
  }
  publisher.summary.rejections.sort((a, b) => a.line - b.line);
  return publisher.summary;
};

/**
 * Where a stream's messages go: with a tenant on a stage with tenant topics, cost events go to that
 * tenant's topic (docs/threat-model.md); otherwise the stream's topic.
 */
export const publishTargetOf = async (
  resources: Resources,
  stream: Stream,
  tenant?: string,
): Promise<PublishTarget> => {
  const bound =
    tenant && stream === COST_STREAM ? await resources.tenantTopicArn(tenant) : undefined;
  const topicArn = bound ?? (await resources.topicArn(stream));
  return {
    topicArn,
    fifo: topicArn.endsWith('.fifo'),
    stream,
    ...(bound ? { tenant } : {}),
  };
};
