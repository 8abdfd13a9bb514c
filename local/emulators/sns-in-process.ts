/**
 * In-process SNS: the topics and subscriptions of the template. Publish fans out to the subscribed
 * local SQS queues (raw delivery or the SNS notification envelope, FIFO group and dedup ids passed on,
 * filter policies applied); FIFO topics drop a MessageDeduplicationId seen in the last 5 minutes, as SNS
 * does; a message over 256 KiB (attributes included) is refused, as SNS does. Publishes to topics without queue subscriptions (the notifications topic) are captured.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  SendMessageCommand,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type PublishBatchCommand, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { isValidFifoId } from '../../lambda/core/keys';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws';
import type { QueuePlan, SubscriptionPlan, TopicPlan } from '../runtime/template';

export interface PublishInput {
  topicArn: string;
  message: string;
  subject?: string;
  attributes?: Record<string, string>;
  groupId?: string;
  deduplicationId?: string;
}

export interface CapturedPublish {
  topicArn: string;
  subject?: string;
  message: string;
  attributes: Record<string, string>;
  messageId: string;
}

export interface PublishResult {
  messageId: string;
  /** Dropped by the FIFO topic's 5-minute deduplication window (or by the FIFO queue's). */
  deduplicated: boolean;
}

const DEDUP_WINDOW_MS = 5 * 60 * 1000;
/** SNS and SQS: at most 256 KiB per message, its message attributes included. */
export const MAX_MESSAGE_BYTES = 256 * 1024;

const invalidParameter = (message: string): Error =>
  Object.assign(new Error(message), { name: 'InvalidParameterException' });

/** The size SNS counts against the limit: the UTF-8 body plus each attribute's name, type and value. */
export const publishSize = (message: string, attributes: Record<string, string> = {}): number =>
  Buffer.byteLength(message, 'utf8') +
  Object.entries(attributes).reduce(
    (sum, [name, value]) =>
      sum + Buffer.byteLength(name, 'utf8') + 'String'.length + Buffer.byteLength(value, 'utf8'),
    0,
  );

type FilterRule = string | number | boolean | null | Record<string, unknown>;

/** SNS filter policy (attribute scope): exact strings/numbers, prefix, suffix, anything-but, exists. */
export const matchesFilterPolicy = (
  policy: Record<string, unknown>,
  attributes: Record<string, string>,
): boolean =>
  Object.entries(policy).every(([name, rules]) => {
    const value = attributes[name];
    const list = (Array.isArray(rules) ? rules : [rules]) as FilterRule[];
    return list.some((rule) => {
      if (rule === null || typeof rule !== 'object')
        return value !== undefined && String(rule) === value;
      if ('exists' in rule) return (value !== undefined) === rule.exists;
      if (value === undefined) return false;
      if ('prefix' in rule) return value.startsWith(String(rule.prefix));
      if ('suffix' in rule) return value.endsWith(String(rule.suffix));
      if ('equals-ignore-case' in rule)
        return value.toLowerCase() === String(rule['equals-ignore-case']).toLowerCase();
      if ('anything-but' in rule) {
        const excluded = rule['anything-but'];
        return !(Array.isArray(excluded) ? excluded : [excluded]).map(String).includes(value);
      }
      throw new Error(
        `filter policy operator ${Object.keys(rule).join(',')} is not supported by the local SNS`,
      );
    });
  });

export class LocalSns {
  readonly captured: CapturedPublish[] = [];
  deduplicated = 0;
  private readonly topics = new Map<string, TopicPlan>();
  private readonly seen = new Map<string, Map<string, { at: number; messageId: string }>>();

  constructor(
    topics: TopicPlan[],
    private readonly subscriptions: SubscriptionPlan[],
    private readonly queues: QueuePlan[],
    private readonly sqs: SQSClient,
  ) {
    for (const topic of topics) this.topics.set(topic.arn, topic);
  }

  topic(arn: string): TopicPlan {
    const topic = this.topics.get(arn);
    if (!topic)
      throw Object.assign(new Error(`Topic does not exist: ${arn}`), { name: 'NotFoundException' });
    return topic;
  }

  private queueByArn(arn: string): QueuePlan {
    const queue = this.queues.find((candidate) => candidate.arn === arn);
    if (!queue) throw new Error(`subscription endpoint ${arn} is not a local queue`);
    return queue;
  }

  async publish(input: PublishInput): Promise<PublishResult> {
    const topic = this.topic(input.topicArn);
    const attributes = input.attributes ?? {};
    const size = publishSize(input.message, attributes);
    if (size > MAX_MESSAGE_BYTES)
      throw invalidParameter(
        `Invalid parameter: Message too long (${size} bytes with its attributes; SNS accepts at most ${MAX_MESSAGE_BYTES})`,
      );
    let deduplicationId = input.deduplicationId;
    if (topic.fifo) {
      if (!input.groupId)
        throw invalidParameter('The MessageGroupId parameter is required for FIFO topics');
      if (!isValidFifoId(input.groupId))
        throw invalidParameter(
          `Invalid parameter: MessageGroupId ${JSON.stringify(input.groupId)}: 1 to 128 ASCII letters, digits or punctuation`,
        );
      if (deduplicationId !== undefined && !isValidFifoId(deduplicationId))
        throw invalidParameter(
          `Invalid parameter: MessageDeduplicationId ${JSON.stringify(deduplicationId)}: 1 to 128 ASCII letters, digits or punctuation`,
        );
      if (!deduplicationId) {
        if (!topic.contentBasedDeduplication)
          throw invalidParameter(
            'The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
          );
        deduplicationId = createHash('sha256').update(input.message).digest('hex');
      }
      const window =
        this.seen.get(topic.arn) ?? new Map<string, { at: number; messageId: string }>();
      this.seen.set(topic.arn, window);
      const now = Date.now();
      const previous = window.get(deduplicationId);
      if (previous && now - previous.at < DEDUP_WINDOW_MS) {
        this.deduplicated++;
        return { messageId: previous.messageId, deduplicated: true };
      }
      window.set(deduplicationId, { at: now, messageId: randomUUID() });
    }
    const messageId = topic.fifo
      ? (this.seen.get(topic.arn)?.get(deduplicationId as string)?.messageId as string)
      : randomUUID();
    const subscribers = this.subscriptions.filter(
      (subscription) => subscription.topicArn === topic.arn,
    );
    if (subscribers.length === 0) {
      this.captured.push({
        topicArn: topic.arn,
        subject: input.subject,
        message: input.message,
        attributes,
        messageId,
      });
      return { messageId, deduplicated: false };
    }
    let queueDeduplicated = false;
    for (const subscription of subscribers) {
      if (subscription.protocol !== 'sqs') continue;
      if (subscription.filterPolicy) {
        const scope =
          subscription.filterPolicyScope === 'MessageBody'
            ? (() => {
                try {
                  return Object.fromEntries(
                    Object.entries(JSON.parse(input.message) as Record<string, unknown>).map(
                      ([k, v]) => [k, String(v)],
                    ),
                  );
                } catch {
                  return {};
                }
              })()
            : attributes;
        if (!matchesFilterPolicy(subscription.filterPolicy, scope)) continue;
      }
      const queue = this.queueByArn(subscription.endpoint);
      const body = subscription.rawMessageDelivery
        ? input.message
        : JSON.stringify({
            Type: 'Notification',
            MessageId: messageId,
            ...(topic.fifo ? { SequenceNumber: String(Date.now()).padStart(20, '0') } : {}),
            TopicArn: topic.arn,
            ...(input.subject ? { Subject: input.subject } : {}),
            Message: input.message,
            Timestamp: new Date().toISOString(),
            SignatureVersion: '2',
            Signature: 'local',
            SigningCertURL: 'https://sns.local/SimpleNotificationService.pem',
            UnsubscribeURL: `https://sns.local/?Action=Unsubscribe&SubscriptionArn=${topic.arn}:${subscription.logicalId}`,
            MessageAttributes: Object.fromEntries(
              Object.entries(attributes).map(([name, value]) => [
                name,
                { Type: 'String', Value: value },
              ]),
            ),
          });
      const messageAttributes: Record<string, MessageAttributeValue> | undefined =
        subscription.rawMessageDelivery && Object.keys(attributes).length > 0
          ? Object.fromEntries(
              Object.entries(attributes)
                .slice(0, 10)
                .map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
            )
          : undefined;
      const sent = await this.sqs.send(
        new SendMessageCommand({
          QueueUrl: queue.url,
          MessageBody: body,
          MessageAttributes: messageAttributes,
          ...(queue.fifo
            ? { MessageGroupId: input.groupId, MessageDeduplicationId: deduplicationId }
            : {}),
        }),
      );
      // The emulator answers a FIFO duplicate with the id of the message already queued.
      if (queue.fifo && sent.MessageId && this.deliveredIds.has(sent.MessageId))
        queueDeduplicated = true;
      if (sent.MessageId) this.deliveredIds.add(sent.MessageId);
    }
    if (queueDeduplicated) this.deduplicated++;
    return { messageId, deduplicated: queueDeduplicated };
  }

  private readonly deliveredIds = new Set<string>();

  /**
   * An SNS client whose Publish goes to this in-process SNS (given to the alert handler: its
   * notifications are captured here, nothing leaves the machine).
   */
  client(): SNSClient {
    const client = new SNSClient({
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
    const attributesOf = (values: PublishCommand['input']['MessageAttributes']) =>
      Object.fromEntries(
        Object.entries(values ?? {}).map(([name, value]) => [
          name,
          String(value.StringValue ?? ''),
        ]),
      );
    client.middlewareStack.add(
      () => async (args) => {
        const batch = args.input as PublishBatchCommand['input'];
        if (Array.isArray(batch.PublishBatchRequestEntries)) {
          // PublishBatch (the push endpoint): each entry is a Publish; a refused one is listed as Failed.
          const successful: { Id: string; MessageId: string }[] = [];
          const failed: { Id: string; Code: string; Message: string; SenderFault: boolean }[] = [];
          for (const entry of batch.PublishBatchRequestEntries) {
            try {
              const result = await this.publish({
                topicArn: String(batch.TopicArn),
                message: String(entry.Message),
                subject: entry.Subject,
                attributes: attributesOf(entry.MessageAttributes),
                groupId: entry.MessageGroupId,
                deduplicationId: entry.MessageDeduplicationId,
              });
              successful.push({ Id: String(entry.Id), MessageId: result.messageId });
            } catch (error) {
              failed.push({
                Id: String(entry.Id),
                Code: (error as Error).name,
                Message: (error as Error).message,
                SenderFault: true,
              });
            }
          }
          return {
            output: { Successful: successful, Failed: failed, $metadata: { httpStatusCode: 200 } },
            response: {},
          };
        }
        const input = args.input as PublishCommand['input'];
        const result = await this.publish({
          topicArn: String(input.TopicArn),
          message: String(input.Message),
          subject: input.Subject,
          attributes: attributesOf(input.MessageAttributes),
          groupId: input.MessageGroupId,
          deduplicationId: input.MessageDeduplicationId,
        });
        return {
          output: { MessageId: result.messageId, $metadata: { httpStatusCode: 200 } },
          response: {},
        };
      },
      { step: 'initialize', name: 'localSnsPublish' },
    );
    return client;
  }
}
