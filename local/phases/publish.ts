/**
 * Phase 3, publish: every message to its stream's topic, 32 publishers at a time, with back-pressure
 * so the emulator's queues stay shallow. What SNS refuses (too large, bad ids) is that message's
 * problem, recorded, never the run's.
 */
import { publishIds } from '../input-file';
import { describeUnpublished, type UnpublishedMessage } from '../report/run-report';
import type { SampleMessage } from '../scenarios/sample';
import type { PublishInput } from '../emulators/sns-in-process';
import { sleep, throwIfAborted } from './abort';

export interface PublishTarget {
  topicArn: string;
  fifoTopic: boolean;
  /** Records of this stream settled so far (for back-pressure). */
  settled: () => number;
}

/** Where a message is published: its stream's shared topic, or the topic of the tenant it names. */
export const targetKey = (message: Pick<SampleMessage, 'topic' | 'tenantTopic'>): string =>
  message.tenantTopic === undefined ? message.topic : `${message.topic}@${message.tenantTopic}`;

export interface PublisherOptions {
  messages: readonly SampleMessage[];
  /** By `targetKey`. */
  targets: ReadonlyMap<string, PublishTarget>;
  publish: (input: PublishInput) => Promise<unknown>;
  signal?: AbortSignal;
  /** Told about the first few messages that could not be published. */
  onUnpublished?: (line: string) => void;
  concurrency?: number;
  /** Published but not yet settled records of a stream above which publishing to it pauses. */
  maxBacklog?: number;
  /** Messages published before these (their positions in `unpublished` follow on). */
  offset?: number;
}

const UNPUBLISHED_SHOWN = 20;

export const unpublishedOf = (
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

export class Publisher {
  /** Messages SNS accepted so far (read live by the progress ticker). */
  published = 0;
  private cursor = 0;
  private readonly unpublished: UnpublishedMessage[] = [];

  constructor(private readonly options: PublisherOptions) {}

  async run(): Promise<{ published: number; unpublished: UnpublishedMessage[] }> {
    const workers = this.options.concurrency ?? 32;
    await Promise.all(Array.from({ length: workers }, () => this.worker()));
    this.unpublished.sort((a, b) => a.message - b.message);
    return { published: this.published, unpublished: this.unpublished };
  }

  private async worker(): Promise<void> {
    const { messages, targets, signal } = this.options;
    const maxBacklog = this.options.maxBacklog ?? 5000;
    while (this.cursor < messages.length) {
      throwIfAborted(signal);
      const index = this.cursor++;
      const message = messages[index];
      const target = targets.get(targetKey(message));
      if (!target) throw new Error(`no stream consumes topic ${targetKey(message)}`);
      // Back-pressure: the emulator refuses receives past ~20,000 visible FIFO messages.
      while (this.published - target.settled() > maxBacklog) await sleep(20, signal);
      try {
        const ids = target.fifoTopic ? publishIds(message) : undefined;
        await this.options.publish({
          topicArn: target.topicArn,
          message: message.message,
          attributes: message.attributes,
          ...(ids ? { groupId: ids.groupId, deduplicationId: ids.deduplicationId } : {}),
        });
        this.published++;
      } catch (error) {
        const problem = unpublishedOf(index + (this.options.offset ?? 0), message, error);
        this.unpublished.push(problem);
        if (this.unpublished.length <= UNPUBLISHED_SHOWN)
          this.options.onUnpublished?.(`not published: ${describeUnpublished(problem)}`);
      }
    }
  }
}
