/** The local S3's bucket notification rules and event JSON, as real S3 validates, filters and encodes them. */
import {
  encodeEventKey,
  matchesNotificationRule,
  nextSequencer,
  notificationRulesOf,
  s3EventNotification,
} from '../../../local/emulators/s3-notifications';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:export-deliveries';
const suffixRule = (suffix: string, topicArn = TOPIC, events = ['s3:ObjectCreated:*']) => ({
  Events: events,
  TopicArn: topicArn,
  Filter: { Key: { FilterRules: [{ Name: 'suffix', Value: suffix }] } },
});

describe('notificationRulesOf', () => {
  it('reads the S3 API shape CDK synthesizes (Custom::S3BucketNotifications)', () => {
    expect(
      notificationRulesOf({
        TopicConfigurations: [
          {
            Id: 'manifests',
            Events: ['s3:ObjectCreated:*'],
            TopicArn: TOPIC,
            Filter: {
              Key: {
                FilterRules: [
                  { Name: 'Prefix', Value: 'exports/' },
                  { Name: 'suffix', Value: '-Manifest.json' },
                ],
              },
            },
          },
        ],
      }),
    ).toEqual([
      {
        id: 'manifests',
        topicArn: TOPIC,
        events: ['s3:ObjectCreated:*'],
        prefix: 'exports/',
        suffix: '-Manifest.json',
      },
    ]);
  });

  it("reads AWS::S3::Bucket's shape (Topic, Event, Filter.S3Key.Rules)", () => {
    expect(
      notificationRulesOf({
        TopicConfigurations: [
          {
            Topic: TOPIC,
            Event: 's3:ObjectCreated:Put',
            Filter: { S3Key: { Rules: [{ Name: 'suffix', Value: '.json' }] } },
          },
        ],
      }),
    ).toEqual([
      {
        id: 'topic-configuration-1',
        topicArn: TOPIC,
        events: ['s3:ObjectCreated:Put'],
        suffix: '.json',
      },
    ]);
    expect(notificationRulesOf({})).toEqual([]);
  });

  it.each([
    [
      'a FIFO topic (S3 does)',
      [suffixRule('.json', `${TOPIC}.fifo`)],
      /cannot target a FIFO SNS topic/,
    ],
    [
      'a topic that is not a resolved ARN',
      [suffixRule('.json', { Ref: 'Topic' } as never)],
      /not a resolved ARN/,
    ],
    [
      'an event type other than object-created',
      [suffixRule('.json', TOPIC, ['s3:ObjectRemoved:*'])],
      /not emulated locally/,
    ],
    [
      'two suffix rules in one filter (S3 does)',
      [
        {
          Events: ['s3:ObjectCreated:*'],
          TopicArn: TOPIC,
          Filter: {
            Key: {
              FilterRules: [
                { Name: 'suffix', Value: 'a' },
                { Name: 'suffix', Value: 'b' },
              ],
            },
          },
        },
      ],
      /more than one suffix rule/,
    ],
    [
      'overlapping suffixes',
      [suffixRule('-Manifest.json'), suffixRule('.json', `${TOPIC}-2`)],
      /overlap/,
    ],
    [
      'an unfiltered configuration next to a filtered one (S3 does)',
      [{ Events: ['s3:ObjectCreated:Put'], TopicArn: TOPIC }, suffixRule('.csv', `${TOPIC}-2`)],
      /overlap/,
    ],
  ])('refuses %s', (_, configurations, message) => {
    expect(() => notificationRulesOf({ TopicConfigurations: configurations })).toThrow(message);
  });

  it('accepts disjoint filters, and overlapping filters for disjoint event types', () => {
    expect(
      notificationRulesOf({
        TopicConfigurations: [
          suffixRule('.csv.gz', `${TOPIC}-2`),
          suffixRule('.json', `${TOPIC}-3`, ['s3:ObjectCreated:Copy']),
          suffixRule('.json', `${TOPIC}-4`, ['s3:ObjectCreated:Post']),
        ],
      }),
    ).toHaveLength(3);
  });
});

describe('matchesNotificationRule', () => {
  const rule = {
    id: 'r',
    topicArn: TOPIC,
    events: ['s3:ObjectCreated:*'],
    prefix: 'exports/',
    suffix: '-Manifest.json',
  };

  it('matches the raw key on prefix and suffix, and the event type', () => {
    const key = 'exports/focus/metadata/BILLING_PERIOD=2026-10/focus-Manifest.json';
    expect(matchesNotificationRule(rule, 'ObjectCreated:Put', key)).toBe(true);
    expect(matchesNotificationRule(rule, 'ObjectCreated:CompleteMultipartUpload', key)).toBe(true);
    expect(matchesNotificationRule(rule, 'ObjectCreated:Put', `x${key}`)).toBe(false);
    expect(matchesNotificationRule(rule, 'ObjectCreated:Put', `${key}.tmp`)).toBe(false);
    expect(
      matchesNotificationRule(
        { ...rule, events: ['s3:ObjectCreated:Put'] },
        'ObjectCreated:Copy',
        key,
      ),
    ).toBe(false);
  });
});

describe('the event JSON', () => {
  it('encodes the key as S3 does: + for space, %XX for "=", "(", "~" and UTF-8, "/" kept', () => {
    expect(encodeEventKey("a b/BILLING_PERIOD=2026-10/Général (7)~!*'.json")).toBe(
      'a+b/BILLING_PERIOD%3D2026-10/G%C3%A9n%C3%A9ral+%287%29%7E%21*%27.json',
    );
    expect(encodeEventKey('plain/key-1_2.csv.gz')).toBe('plain/key-1_2.csv.gz');
  });

  it('one record, event version 2.1, with the configuration id and bucket ARN', () => {
    const notification = s3EventNotification(
      {
        bucket: 'exports',
        key: 'a b.json',
        size: 12,
        eTag: 'abc',
        eventName: 'ObjectCreated:Put',
        eventTime: '2026-11-01T00:00:00.000Z',
        sequencer: '0001A2B3C4D5E60000',
      },
      'manifests',
    );
    expect(notification.Records).toHaveLength(1);
    expect(notification.Records[0]).toMatchObject({
      eventVersion: '2.1',
      eventName: 'ObjectCreated:Put',
      eventTime: '2026-11-01T00:00:00.000Z',
      s3: {
        configurationId: 'manifests',
        bucket: { name: 'exports', arn: 'arn:aws:s3:::exports' },
        object: { key: 'a+b.json', size: 12, eTag: 'abc', sequencer: '0001A2B3C4D5E60000' },
      },
    });
  });

  it('sequencers grow with every event, even when the clock stands still or goes back', () => {
    const sequencers = [
      nextSequencer(1_000),
      nextSequencer(1_000),
      nextSequencer(999),
      nextSequencer(2_000),
    ];
    expect([...sequencers].sort()).toEqual(sequencers);
    expect(new Set(sequencers).size).toBe(4);
    expect(sequencers.every((sequencer) => /^[0-9A-F]{18}$/.test(sequencer))).toBe(true);
  });
});
