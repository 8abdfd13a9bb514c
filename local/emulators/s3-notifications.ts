/**
 * What real S3 does with a bucket notification configuration, for the local S3 emulator: which
 * object-created events reach which SNS topic (event types, key prefix and suffix), the configurations
 * S3 refuses, and the exact event notification JSON S3 publishes (`Records[]`, event version 2.1, the
 * object key URL-encoded as S3 encodes it).
 */
import { LOCAL_REGION } from './local-aws';

export const OBJECT_CREATED_EVENT_NAMES = [
  'ObjectCreated:Put',
  'ObjectCreated:Post',
  'ObjectCreated:Copy',
  'ObjectCreated:CompleteMultipartUpload',
] as const;
export type ObjectCreatedEventName = (typeof OBJECT_CREATED_EVENT_NAMES)[number];

/** One TopicConfiguration of a bucket: the events (`s3:ObjectCreated:*`, …) and key filter it covers. */
export interface NotificationRule {
  id: string;
  topicArn: string;
  events: string[];
  prefix?: string;
  suffix?: string;
}

/** An object that was just written, as the emulator saw it. */
export interface ObjectCreated {
  bucket: string;
  /** The key as stored (not encoded). */
  key: string;
  size: number;
  /** Without quotes, as S3 puts it in the event. */
  eTag?: string;
  eventName: ObjectCreatedEventName;
  eventTime: string;
  sequencer: string;
}

export interface S3EventRecord {
  eventVersion: '2.1';
  eventSource: 'aws:s3';
  awsRegion: string;
  eventTime: string;
  eventName: ObjectCreatedEventName;
  userIdentity: { principalId: string };
  requestParameters: { sourceIPAddress: string };
  responseElements: { 'x-amz-request-id': string; 'x-amz-id-2': string };
  s3: {
    s3SchemaVersion: '1.0';
    configurationId: string;
    bucket: { name: string; ownerIdentity: { principalId: string }; arn: string };
    object: { key: string; size: number; eTag?: string; sequencer: string };
  };
}

export interface S3EventNotification {
  Records: S3EventRecord[];
}

/** Subject of every SNS message S3 publishes. */
export const S3_NOTIFICATION_SUBJECT = 'Amazon S3 Notification';

const invalidConfiguration = (message: string): Error =>
  Object.assign(new Error(`bucket notification configuration refused (as S3 would): ${message}`), {
    name: 'InvalidArgument',
  });

const SUPPORTED_EVENTS = new Set([
  's3:ObjectCreated:*',
  ...OBJECT_CREATED_EVENT_NAMES.map((name) => `s3:${name}`),
]);

interface FilterRuleInput {
  Name?: unknown;
  Value?: unknown;
}

/**
 * The topic configurations of a resolved notification configuration, in either shape CloudFormation
 * knows: the S3 API's (CDK's `Custom::S3BucketNotifications`: `TopicConfigurations[].{Id, TopicArn,
 * Events, Filter.Key.FilterRules}`) or `AWS::S3::Bucket`'s (`TopicConfigurations[].{Topic, Event,
 * Filter.S3Key.Rules}`). Refuses what S3 refuses: FIFO topics, unsupported event types, more than one
 * prefix or suffix rule, and two configurations that overlap (a shared event type and keys both match).
 */
export const notificationRulesOf = (configuration: unknown): NotificationRule[] => {
  const topics = (configuration as { TopicConfigurations?: unknown } | undefined)
    ?.TopicConfigurations;
  if (topics === undefined) return [];
  if (!Array.isArray(topics)) throw invalidConfiguration('TopicConfigurations is not a list');
  const rules = topics.map((entry: Record<string, unknown>, index): NotificationRule => {
    const topicArn = entry.TopicArn ?? entry.Topic;
    if (typeof topicArn !== 'string' || !topicArn.startsWith('arn:'))
      throw invalidConfiguration(
        `TopicConfigurations[${index}]: the topic is not a resolved ARN (${JSON.stringify(topicArn)})`,
      );
    if (topicArn.endsWith('.fifo'))
      throw invalidConfiguration(
        `${topicArn}: S3 event notifications cannot target a FIFO SNS topic; use a standard topic`,
      );
    const events = (entry.Events ?? (entry.Event === undefined ? [] : [entry.Event])) as unknown[];
    if (events.length === 0)
      throw invalidConfiguration(`TopicConfigurations[${index}]: no event type`);
    for (const event of events)
      if (typeof event !== 'string' || !SUPPORTED_EVENTS.has(event))
        throw invalidConfiguration(
          `TopicConfigurations[${index}]: event type ${JSON.stringify(event)} is not emulated locally (supported: ${[...SUPPORTED_EVENTS].join(', ')})`,
        );
    const filter = entry.Filter as
      | { Key?: { FilterRules?: FilterRuleInput[] }; S3Key?: { Rules?: FilterRuleInput[] } }
      | undefined;
    const filterRules = filter?.Key?.FilterRules ?? filter?.S3Key?.Rules ?? [];
    const rule: NotificationRule = {
      id: typeof entry.Id === 'string' ? entry.Id : `topic-configuration-${index + 1}`,
      topicArn,
      events: events as string[],
    };
    for (const { Name, Value } of filterRules) {
      const name = String(Name).toLowerCase();
      if (name !== 'prefix' && name !== 'suffix')
        throw invalidConfiguration(
          `TopicConfigurations[${index}]: filter rule name ${JSON.stringify(Name)} (only prefix and suffix)`,
        );
      if (rule[name] !== undefined)
        throw invalidConfiguration(
          `TopicConfigurations[${index}]: more than one ${name} rule in one filter`,
        );
      rule[name] = String(Value);
    }
    return rule;
  });
  refuseOverlaps(rules);
  return rules;
};

const eventsOverlap = (a: string, b: string): boolean =>
  a === b || a === 's3:ObjectCreated:*' || b === 's3:ObjectCreated:*';

/** Two filters overlap when some key could match both: each prefix a prefix of the other, same for suffixes. */
const filtersOverlap = (a: NotificationRule, b: NotificationRule): boolean => {
  const prefixes = [a.prefix ?? '', b.prefix ?? ''];
  const suffixes = [a.suffix ?? '', b.suffix ?? ''];
  return (
    (prefixes[0].startsWith(prefixes[1]) || prefixes[1].startsWith(prefixes[0])) &&
    (suffixes[0].endsWith(suffixes[1]) || suffixes[1].endsWith(suffixes[0]))
  );
};

const refuseOverlaps = (rules: NotificationRule[]): void => {
  rules.forEach((a, i) =>
    rules.slice(i + 1).forEach((b) => {
      const shared = a.events.some((x) => b.events.some((y) => eventsOverlap(x, y)));
      if (shared && filtersOverlap(a, b))
        throw invalidConfiguration(
          `configurations ${a.id} and ${b.id} overlap (a shared event type and key filters that can both match): give them disjoint prefixes or suffixes`,
        );
    }),
  );
};

/** Whether an event of this name on this (unencoded) key is covered by the rule. */
export const matchesNotificationRule = (
  rule: NotificationRule,
  eventName: string,
  key: string,
): boolean =>
  rule.events.some((event) => event === 's3:ObjectCreated:*' || event === `s3:${eventName}`) &&
  key.startsWith(rule.prefix ?? '') &&
  key.endsWith(rule.suffix ?? '');

/**
 * The object key as S3 writes it in an event: form URL encoding (a space becomes `+`; `=`, `(`, `'`,
 * `~`, non-ASCII become `%XX` of their UTF-8 bytes) with `/` left as is. Consumers decode it with
 * `decodeURIComponent(key.replace(/\+/g, ' '))`.
 */
export const encodeEventKey = (key: string): string =>
  key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment)
        .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
        .replace(/%20/g, '+'),
    )
    .join('/');

/** The JSON real S3 publishes to the SNS topic of the matching configuration (one record). */
export const s3EventNotification = (
  created: ObjectCreated,
  configurationId: string,
): S3EventNotification => ({
  Records: [
    {
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: LOCAL_REGION,
      eventTime: created.eventTime,
      eventName: created.eventName,
      userIdentity: { principalId: 'AWS:LOCALEMULATOR' },
      requestParameters: { sourceIPAddress: '127.0.0.1' },
      responseElements: {
        'x-amz-request-id': created.sequencer.slice(-16),
        'x-amz-id-2': `local/${created.sequencer}`,
      },
      s3: {
        s3SchemaVersion: '1.0',
        configurationId,
        bucket: {
          name: created.bucket,
          ownerIdentity: { principalId: 'LOCALEMULATOR' },
          arn: `arn:aws:s3:::${created.bucket}`,
        },
        object: {
          key: encodeEventKey(created.key),
          size: created.size,
          ...(created.eTag === undefined ? {} : { eTag: created.eTag }),
          sequencer: created.sequencer,
        },
      },
    },
  ],
});

/** The message S3 sends to a destination once, when the notification configuration is put. */
export const s3TestEvent = (bucket: string, time = new Date()) => ({
  Service: 'Amazon S3',
  Event: 's3:TestEvent',
  Time: time.toISOString(),
  Bucket: bucket,
  RequestId: 'LOCALTESTEVENT00',
  HostId: 'local',
});

let lastSequencer = 0n;
/**
 * A sequencer that grows with every event of this process (S3's only promise: for one key, a later
 * event has a greater sequencer when compared as equal-length hex strings).
 */
export const nextSequencer = (now = Date.now()): string => {
  const candidate = BigInt(now) << 16n;
  lastSequencer = candidate > lastSequencer ? candidate : lastSequencer + 1n;
  return lastSequencer.toString(16).toUpperCase().padStart(18, '0');
};
