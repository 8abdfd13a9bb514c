/** What a queue holds, read without consuming it: depth, and the dead letters (peeked and put back). */
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DeadLetter } from '../report/run-report';
import type { QueuePlan } from '../runtime/template';

/** Visible plus in-flight messages. */
export const queueDepth = async (sqs: SQSClient, queue: QueuePlan): Promise<number> => {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queue.url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
};

export const peekDeadLetters = async (sqs: SQSClient, queue: QueuePlan): Promise<DeadLetter[]> => {
  const seen = new Map<string, DeadLetter>();
  const handles: string[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 60,
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) {
      handles.push(message.ReceiptHandle as string);
      seen.set(message.MessageId as string, {
        body: message.Body ?? '',
        attributes: Object.fromEntries(
          Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
            name,
            value.StringValue ?? '',
          ]),
        ),
        ...(message.Attributes?.DeadLetterQueueSourceArn
          ? { deadLetterSource: message.Attributes.DeadLetterQueueSourceArn }
          : {}),
      });
    }
  }
  // Put them back for the operator (the fidelity shim keeps their receive counts honest).
  await Promise.all(
    handles.map((handle) =>
      sqs
        .send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: queue.url,
            ReceiptHandle: handle,
            VisibilityTimeout: 0,
          }),
        )
        .catch(() => undefined),
    ),
  );
  return [...seen.values()];
};
