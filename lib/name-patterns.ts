import { type ServicePublisherId, servicePublisher } from '../contract/publishers';
import { AWS_SCOPE } from './aws-scope';
import { resourceName } from './naming';

/**
 * `aws:SourceArn` name patterns that match this stage's resources of one kind and never another
 * stage's: each pattern continues the stage with a reserved word and a hyphen (lib/naming.ts), which no
 * stage name can contain. None grows with tenants or export prefixes.
 */
export interface StageNamePatterns {
  /** Topics that deliver into the stage's encrypted queues: cost-events (shared and per tenant), budget-alerts, export-deliveries. */
  readonly queueFeedingTopics: readonly string[];
  /** The stage's EventBridge rules (the Cost Anomaly Detection rule). */
  readonly eventRules: readonly string[];
  /** The stage's CloudWatch alarms (every alarm name starts with one of these words after the stage). */
  readonly alarms: readonly string[];
}

const wordPattern = (stage: string, word: string): string => `${resourceName(stage, word)}-*`;

export const ALARM_NAME_WORDS = ['cost', 'budget', 'export', 'period', 'archive'] as const;

export const anomalyRuleName = (stage: string): string =>
  resourceName(stage, 'cost-anomaly-events');

export function stageNamePatterns(stage: string): StageNamePatterns {
  return {
    queueFeedingTopics: ['cost', 'budget', 'export'].map((word) => wordPattern(stage, word)),
    eventRules: [anomalyRuleName(stage)],
    alarms: ALARM_NAME_WORDS.map((word) => wordPattern(stage, word)),
  };
}

/** The names of the resources each AWS service publishes from. */
function publisherNamePatterns(stage: string, publisher: ServicePublisherId): readonly string[] {
  const patterns = stageNamePatterns(stage);
  switch (publisher) {
    case 'eventBridgeRules':
      return patterns.eventRules;
    case 'cloudWatchAlarms':
      return patterns.alarms;
    case 'budgets': // budget names are free-form: any budget of the account
    case 'costAnomalyDetection': // documents no aws:SourceArn
      return ['*'];
  }
}

/** `aws:SourceArn` patterns (ArnLike) of a service publisher in this stage; undefined where AWS documents none. */
export function publisherSourceArnLike(
  stage: string,
  publisher: ServicePublisherId,
): string[] | undefined {
  const { sourceArnLike } = servicePublisher(publisher);
  if (!sourceArnLike) return undefined;
  return [
    ...new Set(publisherNamePatterns(stage, publisher).map((p) => sourceArnLike(AWS_SCOPE, p))),
  ];
}
