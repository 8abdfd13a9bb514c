/**
 * What the product relies on in the local S3 (s3rver, in-process), each shown on the emulator itself:
 * object reads and writes with the AWS SDK, ranged GETs, listings, object-created events and their
 * delivery through the local SNS fan-out to an SQS queue, and what s3rver does not do.
 */
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutBucketNotificationConfigurationCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { startLocalSqs, type LocalSqs } from '../../local/emulators/dynamodb-sqs';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/emulators/local-aws';
import { localS3ClientConfig, startLocalS3, type LocalS3 } from '../../local/emulators/s3';
import {
  notificationRulesOf,
  type ObjectCreated,
  type S3EventNotification,
} from '../../local/emulators/s3-notifications';
import { LocalSns } from '../../local/emulators/sns-in-process';
import type { QueuePlan, SubscriptionPlan, TopicPlan } from '../../local/runtime/template';
import { ExportObjects } from '../../lambda/adapters/export-objects';
import { s3AsyncBuffer, S3Objects } from '../../lambda/adapters/s3-objects';

const BUCKET = 'billing-exports-local';
let s3: LocalS3;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
});
afterAll(async () => {
  await s3?.stop();
});

const put = (key: string, body: string | Uint8Array) =>
  s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
const text = async (key: string, range?: string) => {
  const response = await s3.client.send(
    new GetObjectCommand({ Bucket: BUCKET, Key: key, Range: range }),
  );
  return { body: await response.Body!.transformToString(), contentRange: response.ContentRange };
};
const uniqueKey = (name: string) => `${Math.random().toString(36).slice(2, 10)}/${name}`;

/** The object-created events emitted while `action` runs (and right after it). */
const eventsDuring = async (action: () => Promise<unknown>): Promise<ObjectCreated[]> => {
  const seen: ObjectCreated[] = [];
  const unsubscribe = s3.onObjectCreated((created) => seen.push(created));
  try {
    await action();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    unsubscribe();
  }
  return seen;
};

describe('objects through the AWS SDK v3 client (path-style, default checksum settings)', () => {
  it('PutObject then GetObject returns the same bytes, HeadObject their size', async () => {
    const key = uniqueKey('data/part-0.csv.gz');
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256);
    await put(key, bytes);
    const response = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(Buffer.from(await response.Body!.transformToByteArray())).toEqual(Buffer.from(bytes));
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentLength).toBe(70_000);
    expect(head.ETag).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it('a ranged GET returns exactly bytes a..b (inclusive) with their Content-Range', async () => {
    const key = uniqueKey('range.txt');
    await put(key, '0123456789');
    expect(await text(key, 'bytes=2-5')).toEqual({ body: '2345', contentRange: 'bytes 2-5/10' });
    expect(await text(key, 'bytes=9-9')).toEqual({ body: '9', contentRange: 'bytes 9-9/10' });
    expect(await text(key, 'bytes=7-100')).toEqual({ body: '789', contentRange: 'bytes 7-9/10' });
    await expect(text(key, 'bytes=10-12')).rejects.toMatchObject({ name: 'InvalidRange' });
  });

  it('quirk: `bytes=0-0` returns the whole object and a suffix range `bytes=-N` the first N+1 bytes', async () => {
    const key = uniqueKey('quirk.txt');
    await put(key, '0123456789');
    // Real S3: "0" (bytes 0-0/10) and "789" (bytes 7-9/10).
    expect(await text(key, 'bytes=0-0')).toEqual({
      body: '0123456789',
      contentRange: 'bytes 0-9/10',
    });
    expect(await text(key, 'bytes=-3')).toEqual({ body: '0123', contentRange: 'bytes 0-3/10' });
    // The adapter never sends suffix ranges and trims an over-long answer to what it asked for.
    expect(
      Buffer.from(await new S3Objects(s3.client).readRange(BUCKET, key, 0, 1)).toString(),
    ).toBe('0');
  });

  it('ListObjectsV2 with a prefix lists only those keys, in order, with their sizes', async () => {
    const prefix = `${uniqueKey('exports')}/`;
    for (const name of ['b.csv', 'a.csv', 'metadata/m.json', 'c.csv'])
      await put(`${prefix}${name}`, name);
    await put(`${prefix.slice(0, -1)}-other/x.csv`, 'x');
    const listed = await s3.client.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }),
    );
    expect(listed.Contents?.map((object) => [object.Key, object.Size])).toEqual([
      [`${prefix}a.csv`, 5],
      [`${prefix}b.csv`, 5],
      [`${prefix}c.csv`, 5],
      [`${prefix}metadata/m.json`, 15],
    ]);
    expect(listed.IsTruncated).toBe(false);
  });

  it('quirk: a truncated ListObjectsV2 page fails (InternalError); ListObjects v1 pages with Marker', async () => {
    const prefix = `${uniqueKey('paged')}/`;
    for (const name of ['a', 'b', 'c']) await put(`${prefix}${name}`, name);
    // s3rver encrypts continuation tokens with DES, which OpenSSL 3 (Node 17+) no longer offers.
    await expect(
      s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, MaxKeys: 2 })),
    ).rejects.toMatchObject({ name: 'InternalError' });
    const first = await s3.client.send(
      new ListObjectsCommand({ Bucket: BUCKET, Prefix: prefix, MaxKeys: 2 }),
    );
    expect(first.Contents?.map((object) => object.Key)).toEqual([`${prefix}a`, `${prefix}b`]);
    expect(first.IsTruncated).toBe(true);
    const second = await s3.client.send(
      new ListObjectsCommand({ Bucket: BUCKET, Prefix: prefix, Marker: `${prefix}b` }),
    );
    expect(second.Contents?.map((object) => object.Key)).toEqual([`${prefix}c`]);
    expect(second.IsTruncated).toBe(false);
  });

  it('keys with spaces, "=" and non-ASCII letters round-trip', async () => {
    const key = uniqueKey('BILLING_PERIOD=2026-10/Compte Général €.json');
    await put(key, '{}');
    expect((await text(key)).body).toBe('{}');
    const listed = await s3.client.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: key.split('/')[0] }),
    );
    expect(listed.Contents?.map((object) => object.Key)).toEqual([key]);
  });

  it('a multipart upload assembles its parts in order', async () => {
    const key = uniqueKey('multipart.bin');
    const partOne = Buffer.alloc(5 * 1024 * 1024, 1);
    const created = await s3.client.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }),
    );
    const upload = { Bucket: BUCKET, Key: key, UploadId: created.UploadId };
    const one = await s3.client.send(
      new UploadPartCommand({ ...upload, PartNumber: 1, Body: partOne }),
    );
    const two = await s3.client.send(
      new UploadPartCommand({ ...upload, PartNumber: 2, Body: Buffer.from('tail') }),
    );
    const events = await eventsDuring(() =>
      s3.client.send(
        new CompleteMultipartUploadCommand({
          ...upload,
          MultipartUpload: {
            Parts: [
              { PartNumber: 1, ETag: one.ETag },
              { PartNumber: 2, ETag: two.ETag },
            ],
          },
        }),
      ),
    );
    expect((await text(key, `bytes=${partOne.length - 2}-${partOne.length + 3}`)).body).toBe(
      '\u0001\u0001tail',
    );
    // The emulator's event says Post; the local S3 names it as S3 does.
    expect(events.map((event) => [event.key, event.eventName, event.size])).toEqual([
      [key, 'ObjectCreated:CompleteMultipartUpload', partOne.length + 4],
    ]);
    // Quirk: S3's multipart ETag is the MD5 of the part MD5s plus "-2"; s3rver's is the MD5 of the content.
    expect(events[0].eTag).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('object-created events', () => {
  it('one event per put, with the stored key, size and unquoted ETag; an overwrite emits another with a greater sequencer', async () => {
    const key = uniqueKey('exports/focus/metadata/BILLING_PERIOD=2026-10/focus-Manifest.json');
    const first = await eventsDuring(() => put(key, 'v1'));
    const second = await eventsDuring(() => put(key, 'version 2'));
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect(first[0]).toMatchObject({
      bucket: BUCKET,
      key,
      size: 2,
      eventName: 'ObjectCreated:Put',
    });
    expect(second[0]).toMatchObject({ key, size: 9, eventName: 'ObjectCreated:Put' });
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(`"${second[0].eTag}"`).toBe(head.ETag);
    expect(second[0].sequencer > first[0].sequencer).toBe(true);
    expect(second[0].sequencer).toHaveLength(first[0].sequencer.length);
  });

  it('a delete emits no object-created event', async () => {
    const key = uniqueKey('gone.csv');
    await put(key, 'x');
    expect(
      await eventsDuring(() =>
        s3.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key })),
      ),
    ).toEqual([]);
  });
});

describe('event notifications through the local SNS to an SQS queue, as the template wires them', () => {
  let sqs: LocalSqs;
  let queue: QueuePlan;
  let sns: LocalSns;
  const topic: TopicPlan = {
    logicalId: 'ExportDeliveriesTopic',
    stackName: 'billing-dedup-dev-stateless',
    topicName: 'billing-dedup-dev-export-deliveries',
    arn: `arn:aws:sns:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:billing-dedup-dev-export-deliveries`,
    fifo: false,
    contentBasedDeduplication: false,
  };

  beforeAll(async () => {
    sqs = await startLocalSqs();
    const queueName = `export-deliveries-${Math.random().toString(36).slice(2, 8)}`;
    const url = await sqs.createQueue(queueName, { VisibilityTimeout: '30' });
    queue = {
      logicalId: 'ExportDeliveriesQueue',
      stackName: topic.stackName,
      queueName,
      url,
      arn: `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${queueName}`,
      fifo: false,
      attributes: {},
      visibilityTimeoutSeconds: 30,
    };
    const subscription: SubscriptionPlan = {
      logicalId: 'ExportDeliveriesSubscription',
      topicArn: topic.arn,
      protocol: 'sqs',
      endpoint: queue.arn,
      rawMessageDelivery: false,
      filterPolicyScope: 'MessageAttributes',
    };
    sns = new LocalSns([topic], [subscription], [queue], sqs.client);
  });
  afterAll(async () => {
    await sqs?.stop();
  });

  const drain = async () => {
    const messages = [];
    for (;;) {
      const batch = (
        await sqs.client.send(
          new ReceiveMessageCommand({
            QueueUrl: queue.url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
          }),
        )
      ).Messages;
      if (!batch?.length) return messages;
      messages.push(...batch.map((message) => JSON.parse(message.Body!)));
    }
  };

  it('a test event first, then one notification per manifest put (suffix rule), none for data files', async () => {
    // The shape CDK synthesizes for bucket.addEventNotification(OBJECT_CREATED, SnsDestination, { suffix }).
    const rules = notificationRulesOf({
      TopicConfigurations: [
        {
          Events: ['s3:ObjectCreated:*'],
          TopicArn: topic.arn,
          Filter: { Key: { FilterRules: [{ Name: 'suffix', Value: '-Manifest.json' }] } },
        },
      ],
    });
    const stopDelivering = await s3.deliverNotifications(BUCKET, rules, sns);
    const exportPrefix = `${uniqueKey('exports')}/focus-daily`;
    const manifestKey = `${exportPrefix}/metadata/BILLING_PERIOD=2026-10/focus-daily-Manifest.json`;
    await put(`${exportPrefix}/data/BILLING_PERIOD=2026-10/focus-daily-00001.csv.gz`, 'data');
    await put(manifestKey, '{"dataFiles":[]}');
    await s3.settled();
    stopDelivering();
    await put(manifestKey, 'not delivered: the wiring was removed');
    await s3.settled();

    const envelopes = await drain();
    expect(envelopes).toHaveLength(2);
    for (const envelope of envelopes)
      expect(envelope).toMatchObject({
        Type: 'Notification',
        TopicArn: topic.arn,
        Subject: 'Amazon S3 Notification',
      });
    expect(JSON.parse(envelopes[0].Message)).toMatchObject({
      Service: 'Amazon S3',
      Event: 's3:TestEvent',
      Bucket: BUCKET,
    });
    const notification = JSON.parse(envelopes[1].Message) as S3EventNotification;
    expect(notification.Records).toHaveLength(1);
    const [record] = notification.Records;
    expect(record).toMatchObject({
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: LOCAL_REGION,
      eventName: 'ObjectCreated:Put',
      s3: {
        s3SchemaVersion: '1.0',
        configurationId: 'topic-configuration-1',
        bucket: { name: BUCKET, arn: `arn:aws:s3:::${BUCKET}` },
        object: { size: 16, eTag: expect.stringMatching(/^[0-9a-f]{32}$/) },
      },
    });
    expect(record.s3.object.key).toBe(manifestKey.replace('BILLING_PERIOD=', 'BILLING_PERIOD%3D'));
    expect(record.s3.object.sequencer).toMatch(/^[0-9A-F]{18}$/);
    expect(Date.parse(record.eventTime)).not.toBeNaN();
  });

  it('the key in the notification is URL-encoded as S3 encodes it (space as +, UTF-8 as %XX)', async () => {
    const rules = notificationRulesOf({
      TopicConfigurations: [{ Events: ['s3:ObjectCreated:Put'], TopicArn: topic.arn }],
    });
    const stop = await s3.deliverNotifications(BUCKET, rules, sns, { testEvent: false });
    const key = `${uniqueKey('Compte Général (7)')}/€ ~x=1.json`;
    await put(key, '{}');
    await s3.settled();
    stop();
    const [envelope] = await drain();
    const [record] = (JSON.parse(envelope.Message) as S3EventNotification).Records;
    expect(record.s3.object.key).toMatch(
      /^[a-z0-9]+\/Compte\+G%C3%A9n%C3%A9ral\+%287%29\/%E2%82%AC\+%7Ex%3D1\.json$/,
    );
    expect(decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '))).toBe(key);
  });

  it('a notification SNS refuses is reported by settled(), not lost silently', async () => {
    const missing = { ...topic, arn: `${topic.arn}-missing` };
    const rules = notificationRulesOf({
      TopicConfigurations: [{ Events: ['s3:ObjectCreated:*'], TopicArn: missing.arn }],
    });
    const stop = await s3.deliverNotifications(BUCKET, rules, sns, { testEvent: false });
    await put(uniqueKey('lost-Manifest.json'), '{}');
    await expect(s3.settled()).rejects.toThrow(
      /1 S3 event notification\(s\) could not be delivered: .*Topic does not exist/,
    );
    stop();
    await expect(s3.settled()).resolves.toBeUndefined();
  });
});

describe('what s3rver does not do', () => {
  it('accepts SSE-KMS headers but neither encrypts nor reports encryption', async () => {
    const key = uniqueKey('kms.json');
    const response = await s3.client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: key,
        Body: '{}',
        ServerSideEncryption: 'aws:kms',
        SSEKMSKeyId: 'alias/billing-exports',
      }),
    );
    expect(response.ServerSideEncryption).toBeUndefined();
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ServerSideEncryption).toBeUndefined();
  });

  it('has no versioning: PutBucketVersioning is taken for a CreateBucket', async () => {
    await expect(
      s3.client.send(
        new PutBucketVersioningCommand({
          Bucket: BUCKET,
          VersioningConfiguration: { Status: 'Enabled' },
        }),
      ),
    ).rejects.toMatchObject({ name: 'BucketAlreadyExists' });
  });

  it('has no bucket notification configuration API', async () => {
    await expect(
      s3.client.send(
        new PutBucketNotificationConfigurationCommand({
          Bucket: BUCKET,
          NotificationConfiguration: { TopicConfigurations: [] },
        }),
      ),
    ).rejects.toMatchObject({ name: 'NotImplemented' });
  });

  it('ignores If-Match: a read of a changed object is not refused (S3 answers 412)', async () => {
    const key = uniqueKey('if-match.txt');
    await put(key, 'v1');
    const response = await s3.client.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: key, IfMatch: '"0000"' }),
    );
    expect(await response.Body!.transformToString()).toBe('v1');
  });

  it('refuses an unknown access key; the local credentials are registered at start', async () => {
    const stranger = new S3Client({
      ...localS3ClientConfig(s3.endpoint),
      credentials: { accessKeyId: 'stranger', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
    try {
      await expect(
        stranger.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'any' })),
      ).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
    } finally {
      stranger.destroy();
    }
  });
});

describe('the S3 adapter against the emulator', () => {
  it('an AsyncBuffer reads a file the way a Parquet reader does, in a few ranged GETs', async () => {
    const key = uniqueKey('focus.parquet');
    const size = 3 * 1024 * 1024 + 123;
    const file = Buffer.alloc(size);
    for (let i = 0; i < size; i++) file[i] = (i * 7 + (i >> 8)) % 251;
    const objects = new S3Objects(s3.client);
    await objects.putObject(BUCKET, key, file, { contentType: 'application/vnd.apache.parquet' });
    const buffer = await s3AsyncBuffer(objects, BUCKET, key, { blockSize: 64 * 1024 });
    expect(buffer.byteLength).toBe(size);
    const expectSlice = async (start: number, end: number) =>
      expect(Buffer.from(await buffer.slice(start, end)).equals(file.subarray(start, end))).toBe(
        true,
      );
    // Footer (8 bytes), then the metadata before it, then two column chunks, one of them read twice.
    await expectSlice(size - 8, size);
    await expectSlice(size - 40_000, size - 8);
    await expectSlice(100, 200_000);
    await expectSlice(150_000, 160_000);
    await expectSlice(0, 1);
    expect(buffer.stats.requests).toBe(3);
    expect(objects.requests).toBe(1 + 1 + 3); // PUT, HEAD, ranged GETs

    const stream = await objects.openStream(BUCKET, key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(file)).toBe(true);
    expect(await objects.objectSize(BUCKET, key)).toBe(size);
  });
});

describe('lifecycle', () => {
  it('stop closes the port and removes the object directory', async () => {
    const other = await startLocalS3({ buckets: ['short-lived-bucket'] });
    await other.client.send(
      new PutObjectCommand({ Bucket: 'short-lived-bucket', Key: 'k', Body: 'x' }),
    );
    expect(existsSync(other.directory)).toBe(true);
    await other.stop();
    await other.stop();
    expect(existsSync(other.directory)).toBe(false);
    await expect(
      new Promise((resolve, reject) =>
        createConnection(other.port, '127.0.0.1').on('connect', resolve).on('error', reject),
      ),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('the planner pins a data file on s3rver by its ETag alone (no versions), and the task reads with it', async () => {
    const key = uniqueKey('part-0.csv');
    const csv =
      'BilledCost,BillingAccountId,BillingCurrency,BillingPeriodStart,ChargeCategory,ChargePeriodStart,ChargePeriodEnd\n' +
      '1.50,200000000011,USD,2026-11-01T00:00:00Z,Usage,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z\n';
    const { ETag } = await put(key, csv);
    const objects = new ExportObjects(new S3Objects(s3.client));
    const facts = await objects.factsOf({
      uri: `s3://${BUCKET}/${key}`,
      bucket: BUCKET,
      key,
      format: 'csv',
    });
    expect(facts?.pin).toEqual({ eTag: ETag });

    const rows = [];
    const task = {
      index: 0,
      kind: 'csv-file',
      objectKey: key,
      format: 'csv',
      pin: facts?.pin,
    } as const;
    for await (const row of objects.rowsOf(BUCKET, task, 0)) rows.push(row.cells.BilledCost);
    expect(rows).toEqual(['1.50']);
  });
});
