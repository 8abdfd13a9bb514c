/**
 * Publishes the push endpoint's publications to their topics, ten at a time (`PublishBatch`). Any entry
 * SNS did not take fails the whole call, so the sender is answered 5xx and retries; the entries that
 * were taken are then published again, ordinary duplicates for the consumers.
 */
import { PublishBatchCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { Publication, PushTopic } from '../core/push/publication';

export interface TopicArns {
  readonly alerts: string;
  /** Absent when the stack has no shared cost-events topic (cost events are then refused at synth). */
  readonly costEvents?: string;
  readonly costEventsFifo: boolean;
}

const SNS_BATCH = 10;

export const snsPublisher =
  (sns: SNSClient, topics: TopicArns) =>
  async (publications: readonly Publication[]): Promise<void> => {
    const byTopic = new Map<PushTopic, Publication[]>();
    for (const publication of publications)
      byTopic.set(publication.topic, [...(byTopic.get(publication.topic) ?? []), publication]);
    for (const [topic, entries] of byTopic) {
      const arn = topic === 'alerts' ? topics.alerts : topics.costEvents;
      if (arn === undefined) throw new Error(`no ${topic} topic configured`);
      const fifo = topic === 'cost-events' && topics.costEventsFifo;
      for (let start = 0; start < entries.length; start += SNS_BATCH) {
        const batch = entries.slice(start, start + SNS_BATCH);
        const result = await sns.send(
          new PublishBatchCommand({
            TopicArn: arn,
            PublishBatchRequestEntries: batch.map((entry, index) => ({
              Id: String(index),
              Message: entry.message,
              MessageAttributes: Object.fromEntries(
                Object.entries(entry.attributes).map(([name, value]) => [
                  name,
                  { DataType: 'String', StringValue: value },
                ]),
              ),
              ...(fifo
                ? {
                    MessageGroupId: entry.messageGroupId,
                    MessageDeduplicationId: entry.messageDeduplicationId,
                  }
                : {}),
            })),
          }),
        );
        if ((result.Failed ?? []).length > 0)
          throw new Error(
            `SNS refused ${result.Failed?.length} of ${batch.length} messages to ${topic}: ` +
              `${result.Failed?.[0]?.Code} ${result.Failed?.[0]?.Message ?? ''}`,
          );
      }
    }
  };
