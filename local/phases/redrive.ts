/** Phase 5, redrive (optional): every DLQ back to its source queue with faults off. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { redriveDlq } from '../../cli/operations/redrive';
import type { StreamName } from '../../contract/streams';
import type { QueuePlan } from '../runtime/template';

export interface RedriveTarget {
  stream: StreamName;
  queue: QueuePlan;
  dlq?: QueuePlan;
}

type Redrive = typeof redriveDlq;

/** Messages moved per stream; a failed redrive fails the run, naming the queue. */
export const redriveDeadLetters = async (options: {
  streams: readonly RedriveTarget[];
  sqs: SQSClient;
  onQueue?: (line: string) => void;
  redrive?: Redrive;
}): Promise<Record<string, number>> => {
  const redrive = options.redrive ?? redriveDlq;
  const moved: Record<string, number> = Object.fromEntries(
    options.streams.map((stream) => [stream.stream, 0]),
  );
  for (const { stream, queue, dlq } of options.streams) {
    if (!dlq) continue;
    options.onQueue?.(`redriving ${dlq.queueName} → ${queue.queueName} (faults off)…`);
    const result = await redrive({
      sqs: options.sqs,
      dlqUrl: dlq.url,
      sourceQueueUrl: queue.url,
      pollMs: 250,
    });
    if (result.status === 'FAILED')
      throw new Error(`redrive of ${dlq.queueName} failed: ${result.failureReason}`);
    moved[stream] = result.moved;
  }
  return moved;
};
