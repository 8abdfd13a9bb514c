/**
 * DLQ redrive with SQS message move tasks: StartMessageMoveTask from the DLQ to the source queue, then
 * ListMessageMoveTasks polling until the task ends. Free of CLI concerns (no printing, no flags): the local
 * run reuses it for its recovery mode.
 *
 * The destination is given explicitly whenever it is known. Without DestinationArn SQS returns each message
 * to the queue it was dead-lettered from — which it only knows for messages SQS itself moved after
 * maxReceiveCount; poison messages the consumer sent to the DLQ would make the task fail with
 * CouldNotDetermineMessageSource. So: `sourceQueueUrl` if given, else the DLQ's only source queue
 * (ListDeadLetterSourceQueues), else SQS's own choice.
 */
import {
  GetQueueAttributesCommand,
  ListDeadLetterSourceQueuesCommand,
  ListMessageMoveTasksCommand,
  StartMessageMoveTaskCommand,
  type ListMessageMoveTasksResultEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';

export interface RedriveProgress {
  moved: number;
  toMove: number;
  status: string;
}

export interface RedriveOptions {
  sqs: SQSClient;
  dlqUrl: string;
  /** Where the messages go; default: the DLQ's only source queue (see the module comment). */
  sourceQueueUrl?: string;
  /** MaxNumberOfMessagesPerSecond of the task (1–500); default: SQS's adaptive rate. */
  maxPerSecond?: number;
  onProgress?: (progress: RedriveProgress) => void;
  /** Interval between ListMessageMoveTasks polls (default 2000 ms). */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface RedriveResult {
  moved: number;
  /** Messages the task did not move (task FAILED or CANCELLED): ToMove − Moved. */
  failed: number;
  taskHandle?: string;
  status: 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'NOTHING_TO_MOVE';
  failureReason?: string;
  sourceArn: string;
  destinationArn?: string;
}

const queueArn = async (sqs: SQSClient, queueUrl: string): Promise<string> => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  if (!Attributes?.QueueArn) throw new Error(`SQS returned no QueueArn for ${queueUrl}`);
  return Attributes.QueueArn;
};

/** The queue a redrive sends messages back to, as an ARN (undefined: let SQS decide per message). */
export const redriveDestination = async (
  sqs: SQSClient,
  dlqUrl: string,
  sourceQueueUrl?: string,
): Promise<string | undefined> => {
  if (sourceQueueUrl) return queueArn(sqs, sourceQueueUrl);
  const { queueUrls = [] } = await sqs.send(
    new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlqUrl, MaxResults: 2 }),
  );
  return queueUrls.length === 1 ? queueArn(sqs, queueUrls[0]) : undefined;
};

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/** Moves every message of the DLQ back to its source queue and resolves when the move task has ended. */
export const redriveDlq = async (options: RedriveOptions): Promise<RedriveResult> => {
  const { sqs, dlqUrl, maxPerSecond, onProgress, pollMs = 2000, sleep = defaultSleep } = options;
  const sourceArn = await queueArn(sqs, dlqUrl);
  const destinationArn = await redriveDestination(sqs, dlqUrl, options.sourceQueueUrl);
  const base = { sourceArn, ...(destinationArn ? { destinationArn } : {}) };

  const { Attributes: depth = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: dlqUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  const waiting =
    Number(depth.ApproximateNumberOfMessages ?? 0) +
    Number(depth.ApproximateNumberOfMessagesNotVisible ?? 0);
  if (waiting === 0) return { moved: 0, failed: 0, status: 'NOTHING_TO_MOVE', ...base };

  const listTasks = async () =>
    (await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: sourceArn, MaxResults: 10 })))
      .Results ?? [];
  // Tasks that ended before ours started must never be mistaken for ours.
  const before = Math.max(0, ...(await listTasks()).map((entry) => entry.StartedTimestamp ?? 0));

  const { TaskHandle: taskHandle } = await sqs.send(
    new StartMessageMoveTaskCommand({
      SourceArn: sourceArn,
      ...(destinationArn ? { DestinationArn: destinationArn } : {}),
      ...(maxPerSecond ? { MaxNumberOfMessagesPerSecond: maxPerSecond } : {}),
    }),
  );

  for (;;) {
    const results = await listTasks();
    // Only a running task carries its handle; one task at a time runs per source, so once ours has
    // ended it is the most recent entry started after `before`.
    const task: ListMessageMoveTasksResultEntry | undefined =
      results.find((entry) => taskHandle && entry.TaskHandle === taskHandle) ??
      results.find((entry) => !entry.TaskHandle && (entry.StartedTimestamp ?? 0) > before);
    const status = task?.Status ?? 'RUNNING';
    const moved = Number(task?.ApproximateNumberOfMessagesMoved ?? 0);
    const toMove = Number(task?.ApproximateNumberOfMessagesToMove ?? waiting);
    onProgress?.({ moved, toMove, status });
    if (TERMINAL.has(status)) {
      return {
        moved,
        failed: status === 'COMPLETED' ? 0 : Math.max(0, toMove - moved),
        ...(taskHandle ? { taskHandle } : {}),
        status: status as RedriveResult['status'],
        ...(task?.FailureReason ? { failureReason: task.FailureReason } : {}),
        ...base,
      };
    }
    await sleep(pollMs);
  }
};
