import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { SERVICE_PUBLISHERS, servicePublisher } from '../../contract/publishers';
import { COST_STREAM, STREAM_DEFINITIONS, type StreamName } from '../../contract/streams';
import type { BillingDedupConfig } from '../config';
import { SecureTopic } from '../constructs/secure-topic';
import { publisherSourceArnLike } from '../name-patterns';
import { messagingName } from '../naming';

export interface MessagingTopicsProps {
  readonly config: BillingDedupConfig;
  readonly messagingKey: kms.IKey;
}

/** The shared cost topic (tenant from the message) exists without tenants, and with them only when trusted producers need it. */
export const hasSharedCostTopic = (config: BillingDedupConfig): boolean =>
  config.tenants.length === 0 || config.trustedCostTopic;

/** Configured principals allowed to publish to a stream's shared topic. */
const publishersOf = (stream: StreamName, config: BillingDedupConfig): readonly string[] =>
  stream === COST_STREAM ? config.costEventsPublishers : config.budgetAlertsPublishers;

/**
 * The stateless stack's topics: each stream's shared topic (`CostEvents`, `BudgetAlerts`; the cost
 * topic only when `hasSharedCostTopic`), `Notifications` (one message per alert or export diff) and
 * `Ops` (alarms), with their e-mail subscriptions. Each is a SecureTopic added directly to `scope`
 * under the id it has always had, so the deployed logical ids stay; this class only groups them.
 */
export class MessagingTopics {
  /** Each stream's shared topic, by stream name. */
  readonly streamTopics: Readonly<Partial<Record<StreamName, sns.Topic>>>;
  readonly notifications: sns.Topic;
  readonly ops: sns.Topic;
  private readonly opsTopic: SecureTopic;
  private readonly stage: string;

  constructor(scope: Construct, props: MessagingTopicsProps) {
    const { config, messagingKey } = props;
    const stage = config.stage;
    this.stage = stage;
    const streamTopics: Partial<Record<StreamName, sns.Topic>> = {};
    for (const stream of STREAM_DEFINITIONS) {
      if (stream.name === COST_STREAM && !hasSharedCostTopic(config)) continue;
      const fifo = stream.name === COST_STREAM && config.costStreamKind === 'fifo';
      streamTopics[stream.name] = new SecureTopic(scope, stream.outputPrefix, {
        topicName: messagingName(stage, stream.name, fifo),
        displayName: `billing-dedup ${stage} ${stream.label.toLowerCase()}`,
        fifo,
        masterKey: messagingKey,
        servicePublishers: stream.servicePublishers.map((publisherId) => ({
          service: servicePublisher(publisherId).principal,
          sourceArnLike: publisherSourceArnLike(stage, publisherId),
        })),
        principals: publishersOf(stream.name, config),
      }).topic;
    }
    this.streamTopics = streamTopics;

    this.notifications = new SecureTopic(scope, 'Notifications', {
      topicName: messagingName(stage, 'notifications', false),
      displayName: `billing-dedup ${stage} notifications`,
      fifo: false,
      masterKey: messagingKey,
    }).topic;
    for (const email of config.notificationEmails) {
      this.notifications.addSubscription(new subs.EmailSubscription(email));
    }

    // CloudWatch may publish only from this stage's alarms (allowAlarms, once they exist).
    this.opsTopic = new SecureTopic(scope, 'Ops', {
      topicName: messagingName(stage, 'ops', false),
      displayName: `billing-dedup ${stage} ops alarms`,
      fifo: false,
      masterKey: messagingKey,
    });
    this.ops = this.opsTopic.topic;
    for (const email of config.opsEmails) {
      this.ops.addSubscription(new subs.EmailSubscription(email));
    }
  }

  /** Let this stage's CloudWatch alarms publish to `ops`. */
  allowAlarms(): void {
    // By name pattern, not by ARN: one ARN per alarm would grow the topic policy with every tenant.
    this.opsTopic.allowServicePublisher({
      service: SERVICE_PUBLISHERS.cloudWatchAlarms.principal,
      sourceArnLike: publisherSourceArnLike(this.stage, 'cloudWatchAlarms'),
    });
  }
}
