/**
 * AWS services that publish into the app's topics, as plain data: the topic policies and the
 * messaging key policy are built from the same entries. ARN builders take strings, so lib/ can
 * pass CloudFormation pseudo-parameter tokens.
 */
export interface ArnScope {
  readonly partition: string;
  readonly account: string;
  readonly region: string;
}

export interface ServicePublisherDefinition {
  /** Names the key policy statement: `Allow<name>ToPublish`. */
  readonly name: string;
  /** Service principal. */
  readonly principal: string;
  /**
   * `aws:SourceArn` pattern of the publishing resources whose names match `resourceNamePattern`;
   * absent where AWS documents only `aws:SourceAccount`.
   */
  readonly sourceArnLike?: (scope: ArnScope, resourceNamePattern: string) => string;
}

export const SERVICE_PUBLISHERS = {
  /** https://docs.aws.amazon.com/cost-management/latest/userguide/budgets-sns-policy.html (budget names are free-form). */
  budgets: {
    name: 'Budgets',
    principal: 'budgets.amazonaws.com',
    sourceArnLike: ({ partition, account }) => `arn:${partition}:budgets::${account}:*`,
  },
  /** Cost Anomaly Detection documents only the aws:SourceAccount condition. */
  costAnomalyDetection: {
    name: 'CostAnomalyDetection',
    principal: 'costalerts.amazonaws.com',
  },
  /**
   * EventBridge rules of this stage (the Cost Anomaly Detection rule → budget-alerts topic); the topic
   * policy names the one rule, the key policy the stage's rules.
   */
  eventBridgeRules: {
    name: 'EventBridgeRules',
    principal: 'events.amazonaws.com',
    sourceArnLike: ({ partition, region, account }, ruleNamePattern) =>
      `arn:${partition}:events:${region}:${account}:rule/${ruleNamePattern}`,
  },
  /** CloudWatch alarms publishing to the ops topic. */
  cloudWatchAlarms: {
    name: 'CloudWatchAlarms',
    principal: 'cloudwatch.amazonaws.com',
    sourceArnLike: ({ partition, region, account }, alarmNamePattern) =>
      `arn:${partition}:cloudwatch:${region}:${account}:alarm:${alarmNamePattern}`,
  },
} as const satisfies Record<string, ServicePublisherDefinition>;

export type ServicePublisherId = keyof typeof SERVICE_PUBLISHERS;

export const servicePublisher = (id: ServicePublisherId): ServicePublisherDefinition =>
  SERVICE_PUBLISHERS[id];

/** Every service publisher of every topic, in declaration order. */
export const ALL_SERVICE_PUBLISHERS: readonly ServicePublisherDefinition[] =
  Object.values(SERVICE_PUBLISHERS);
