/** The chunk queue: export tasks sent with SendMessageBatch, ten per call, failed entries sent again. */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { TaskQueuePort } from '../core/exports/plan-delivery';
import { jitteredBackoff, type Backoff } from './dynamo-kit/backoff';
import { taskMessageBody, type ExportTaskMessage } from '../core/exports/task-message';

export const SEND_BATCH_LIMIT = 10;
const ATTEMPTS = 5;

/** Up to 50 ms · 2^attempt, jittered (attempts stop at ATTEMPTS, under the cap). */
const BACKOFF = { baseMs: 50, capMs: 1_000 };

export class SqsTaskQueue implements TaskQueuePort {
  private readonly pause: Backoff;

  /** `remainingMs`: the invocation's remaining time, when known; no pause goes past it. */
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    remainingMs?: () => number,
  ) {
    this.pause = jitteredBackoff({ ...BACKOFF, ...(remainingMs ? { remainingMs } : {}) });
  }

  async send(messages: readonly ExportTaskMessage[]): Promise<void> {
    for (let start = 0; start < messages.length; start += SEND_BATCH_LIMIT) {
      await this.sendBatch(messages.slice(start, start + SEND_BATCH_LIMIT), start);
    }
  }

  private async sendBatch(messages: readonly ExportTaskMessage[], offset: number): Promise<void> {
    let pending = messages.map((message, index) => ({
      Id: String(offset + index),
      MessageBody: taskMessageBody(message),
    }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      const response = await this.client.send(
        new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: pending }),
      );
      const failed = response.Failed ?? [];
      if (failed.length === 0) return;
      if (attempt + 1 >= ATTEMPTS || failed.some((entry) => entry.SenderFault)) {
        const first = failed[0];
        throw new Error(
          `${failed.length} export tasks were not accepted by the chunk queue (${first.Code}: ${first.Message})`,
        );
      }
      const retry = new Set(failed.map((entry) => entry.Id));
      pending = pending.filter((entry) => retry.has(entry.Id));
      await this.pause(attempt);
    }
  }
}
