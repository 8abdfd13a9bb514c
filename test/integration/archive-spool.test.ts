import { randomBytes } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import {
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { readArchivedCostEvents } from '../../cli/operations/archive-replay';
import { SECONDS_PER_DAY, consumerEnvironment } from '../../contract/environment';
import { readArchivedRecords } from '../../lambda/adapters/s3-archive-reader';
import { signedS3PutLike } from '../../lambda/adapters/s3-signed-put';
import { REJECTION_ATTRIBUTES } from '../../lambda/adapters/sqs-dead-letters';
import { createArchiverHandler } from '../../lambda/handlers/archiver';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import { sqsRecordFromMessage } from '../../local/runtime/lambda-sim';
import { startArchivingLedger, type ArchivingLedger } from '../support/archiving-ledger';
import { costEvent } from '../support/cost-events';
import { totalsByCurrency } from '../support/ledger-checks';
import { redelivered, sqsEvent, sqsRecord } from '../support/sqs-events';

const STREAM = 'cost-events';
const BUCKET = 'archive-spool-test';
const SPOOL_ARN = 'arn:aws:sqs:us-east-1:000000000000:archive-spool';

/** The emulators and tables (its direct-mode handler is not used: each test wires its spooling ones). */
let local: ArchivingLedger;
let s3: ArchivingLedger['s3'];
let sqs: ArchivingLedger['sqs'];
let dynamo: ArchivingLedger['dynamo'];
let tables: ArchivingLedger['tables'];

beforeAll(async () => {
  local = await startArchivingLedger(BUCKET);
  ({ s3, sqs, dynamo, tables } = local);
});

afterAll(() => local.stop());

const unique = (name: string) => `${name}-${randomBytes(4).toString('hex')}`;

/** A spool queue as the stack creates it: SQS's classic 256 KiB message size. */
const newSpool = () => sqs.createQueue(unique('archive-spool'), { MaximumMessageSize: '262144' });

/** The SQS client of a consumer whose invocation dies right after its spool message was sent. */
const crashingAfterSpoolSend = (spoolUrl: string): SQSClient =>
  ({
    send: async (command: unknown) => {
      const output = await sqs.client.send(command as SendMessageCommand);
      if (command instanceof SendMessageCommand && command.input.QueueUrl === spoolUrl)
        throw Object.assign(new Error('Runtime exited'), { name: 'Runtime.ExitError' });
      return output;
    },
  }) as unknown as SQSClient;

const costHandler = async (spoolUrl: string, client: SQSClient = sqs.client) =>
  createCostLedgerHandler(
    consumerEnvironment({
      streamName: STREAM,
      queueKind: 'standard',
      dlqUrl: await sqs.createQueue(unique('cost-dlq')),
      dedupTableName: tables.dedupTable,
      ledgerTableName: tables.ledgerTable,
      dedupTtlSeconds: 35 * SECONDS_PER_DAY,
      maxConcurrency: 8,
      logLevel: 'SILENT',
      archiveBucketName: BUCKET,
      archiveSpoolUrl: spoolUrl,
    }),
    { dynamo, sqs: client, archiveStore: signedS3PutLike(s3.client) },
  );

const archiver = async (dlqUrl?: string) =>
  createArchiverHandler(
    consumerEnvironment({
      streamName: 'archive-spool',
      dlqUrl: dlqUrl ?? (await sqs.createQueue(unique('spool-dlq'))),
      archiveBucketName: BUCKET,
      logLevel: 'SILENT',
    }),
    { sqs: sqs.client, archiveStore: signedS3PutLike(s3.client) },
  );

/** Everything waiting in a queue, received once (made invisible for a minute), as Lambda would hand it over. */
const receiveAll = async (queueUrl: string): Promise<Message[]> => {
  const messages: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 60,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return messages;
    messages.push(...Messages);
  }
};

const asRecords = (messages: Message[], receiveCount = 1): SQSRecord[] =>
  messages.map((message) => sqsRecordFromMessage(message, { queueArn: SPOOL_ARN, receiveCount }));

/** Every archived object under a prefix: key and bytes (the current version). */
const objectsUnder = async (prefix: string) => {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return Object.fromEntries(
    await Promise.all(
      (listed.Contents ?? []).map(async ({ Key }) => {
        const object = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
        return [
          String(Key),
          Buffer.from(await object.Body!.transformToByteArray()).toString('hex'),
        ];
      }),
    ),
  );
};

const charges = (account: string, tenant = 'acme') => [
  sqsRecord(costEvent({ accountId: account, tenant, amount: '1.10', skuId: 'sku-a' })),
  sqsRecord(costEvent({ accountId: account, tenant, amount: '2.20', skuId: 'sku-b' })),
  sqsRecord(costEvent({ accountId: account, tenant, amount: '3.30', skuId: 'sku-c' })),
  sqsRecord('not json'),
];

describe('archive spool on the local SQS and S3', () => {
  it('a crash between the spool send and the acknowledgement: nothing lost, and the rebuild books each charge once', async () => {
    const spoolUrl = await newSpool();
    const account = '310000000001';
    // The only test of this bucket that files under acme (the ledger checks read acme's partitions).
    const records = charges(account, 'acme');

    const crashed = await (
      await costHandler(spoolUrl, crashingAfterSpoolSend(spoolUrl))
    )(sqsEvent(records));
    // The invocation could not confirm its archive: every record stays on the source queue.
    expect(crashed.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(
      records.map((record) => record.messageId).sort(),
    );
    const again = await (await costHandler(spoolUrl))(sqsEvent(redelivered(records)));
    expect(again.batchItemFailures).toEqual([]);
    expect(await totalsByCurrency(dynamo, tables.ledgerTable, account)).toEqual({
      USD: { total: '6.6', charges: 3 },
    });

    // Both deliveries were spooled (one message each); nothing is in S3 until the archiver runs.
    const spooled = await receiveAll(spoolUrl);
    expect(spooled).toHaveLength(2);
    expect(await objectsUnder(`${STREAM}/tenant=acme/`)).toEqual({});
    const archived = await (await archiver())(sqsEvent(asRecords(spooled)));
    expect(archived.batchItemFailures).toEqual([]);

    const keys = Object.keys(await objectsUnder(`${STREAM}/`)).filter((key) =>
      key.includes('acme'),
    );
    expect(keys).toEqual([
      expect.stringMatching(
        /^cost-events\/tenant=acme\/period=2026-11\/day=\d{4}-\d{2}-\d{2}\/spool-[0-9a-f]{32}\.jsonl\.gz$/,
      ),
    ]);
    const lines = await readArchivedRecords(s3.client, BUCKET, `${STREAM}/tenant=acme/`);
    // Each charge twice: the first pass (applied) and the redelivery (duplicate).
    expect(lines.map((line) => line.outcome).sort()).toEqual([
      'applied',
      'applied',
      'applied',
      'duplicate',
      'duplicate',
      'duplicate',
    ]);
    const poison = await readArchivedRecords(s3.client, BUCKET, `${STREAM}/tenant=_unscoped/`);
    expect(
      poison.filter((line) => records.some((r) => r.messageId === line.messageId)),
    ).toHaveLength(2);
    // What a replay or rebuild reads: each charge once, however many copies the archive holds.
    const replay = await readArchivedCostEvents(s3.client, BUCKET, 'acme', '2026-11');
    expect(replay.events.map((event) => event.record.messageId).sort()).toEqual(
      records
        .slice(0, 3)
        .map((record) => record.messageId)
        .sort(),
    );
  });

  it('the archiver under redelivery: the same spool batch, in any order, rewrites the same objects byte for byte', async () => {
    const spoolUrl = await newSpool();
    const handler = await costHandler(spoolUrl);
    for (const [index, tenant] of ['spool-a', 'spool-b', 'spool-a'].entries())
      expect(
        (await handler(sqsEvent(charges(`32000000000${index}`, tenant)))).batchItemFailures,
      ).toEqual([]);
    const spooled = await receiveAll(spoolUrl);
    expect(spooled).toHaveLength(3);
    const archive = await archiver();

    // The first invocation stores its objects and dies before SQS deletes the messages.
    expect((await archive(sqsEvent(asRecords(spooled)))).batchItemFailures).toEqual([]);
    const first = await objectsUnder(`${STREAM}/tenant=spool-`);
    // One object per partition of the whole batch: two invocations of spool-a in one object.
    expect(Object.keys(first)).toHaveLength(2);

    expect(
      (await archive(sqsEvent(asRecords([...spooled].reverse(), 2)))).batchItemFailures,
    ).toEqual([]);
    expect(await objectsUnder(`${STREAM}/tenant=spool-`)).toEqual(first);
    const lines = await readArchivedRecords(s3.client, BUCKET, `${STREAM}/tenant=spool-a/`);
    expect(lines).toHaveLength(6);
  });

  it('a poison spool message goes to the spool DLQ with its reason; the rest of the batch is archived', async () => {
    const spoolUrl = await newSpool();
    const dlqUrl = await sqs.createQueue(unique('spool-dlq'));
    expect(
      (await (await costHandler(spoolUrl))(sqsEvent(charges('330000000001', 'spool-p'))))
        .batchItemFailures,
    ).toEqual([]);
    await sqs.client.send(
      new SendMessageCommand({ QueueUrl: spoolUrl, MessageBody: 'not a spool message' }),
    );
    const spooled = await receiveAll(spoolUrl);
    const outcome = await (await archiver(dlqUrl))(sqsEvent(asRecords(spooled)));
    expect(outcome.batchItemFailures).toEqual([]);
    const [dead, ...more] = await receiveAll(dlqUrl);
    expect(more).toEqual([]);
    expect(dead.Body).toBe('not a spool message');
    expect(dead.MessageAttributes?.[REJECTION_ATTRIBUTES.reason]?.StringValue).toMatch(
      /not base64/,
    );
    expect(dead.MessageAttributes?.[REJECTION_ATTRIBUTES.stream]?.StringValue).toBe(
      'archive-spool',
    );
    expect(await readArchivedRecords(s3.client, BUCKET, `${STREAM}/tenant=spool-p/`)).toHaveLength(
      3,
    );
  });

  it('a record too large for a spool message is put directly, at an oversize- key; the rest is spooled', async () => {
    const spoolUrl = await newSpool();
    const big = randomBytes(240_000).toString('base64');
    const records = [...charges('340000000001', 'spool-o').slice(0, 1), sqsRecord(big)];
    expect((await (await costHandler(spoolUrl))(sqsEvent(records))).batchItemFailures).toEqual([]);
    const oversize = Object.keys(await objectsUnder(`${STREAM}/tenant=_unscoped/`)).filter((key) =>
      key.includes('/oversize-'),
    );
    expect(oversize).toHaveLength(1);
    const [stored] = await readArchivedRecords(s3.client, BUCKET, oversize[0]);
    expect(stored).toMatchObject({
      messageId: records[1].messageId,
      body: big,
      outcome: 'rejected',
    });
    const spooled = await receiveAll(spoolUrl);
    expect(spooled).toHaveLength(1);
    expect(Buffer.byteLength(spooled[0].Body ?? '')).toBeLessThanOrEqual(262_144);
  });
});
