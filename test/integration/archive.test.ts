import { gunzipSync } from 'node:zlib';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { SECONDS_PER_DAY, consumerEnvironment } from '../../contract/environment';
import {
  SignedS3Put,
  signedS3PutLike,
  type ObjectStore,
} from '../../lambda/adapters/s3-signed-put';
import type { ArchivedRecord } from '../../lambda/core/archive';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import { LOCAL_REGION } from '../../local/emulators/local-aws';
import { startLocalS3, type LocalS3 } from '../../local/emulators/s3';
import {
  createLedgerTables,
  localDynamo,
  startLocalSqs,
  type LedgerTables,
  type LocalSqs,
} from '../support/aws-local';
import { costEvent } from '../support/cost-events';
import { totalsByCurrency } from '../support/ledger-checks';
import { redelivered, sqsEvent, sqsRecord } from '../support/sqs-events';

const STREAM = 'cost-events';
const BUCKET = 'archive-test';

let s3: LocalS3;
let sqs: LocalSqs;
let dynamo: DynamoDBClient;
let tables: LedgerTables;

beforeAll(async () => {
  [s3, sqs] = await Promise.all([startLocalS3({ buckets: [BUCKET] }), startLocalSqs()]);
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
});

afterAll(async () => {
  dynamo.destroy();
  await Promise.all([s3.stop(), sqs.stop()]);
});

/** The consumers' own put (a signed PutObject) to the local S3, with the local credentials. */
const localPut = (): ObjectStore => signedS3PutLike(s3.client);

/** The put reaches S3, then the invocation dies before it can answer: nothing is acknowledged. */
const crashAfterPut = (): ObjectStore => {
  const put = localPut();
  return {
    putObject: async (object) => {
      await put.putObject(object);
      throw Object.assign(new Error('Runtime exited'), { name: 'Runtime.ExitError' });
    },
  };
};

/** The local S3 itself refuses the put: signed with a key it does not know. */
const refusedPut = (): ObjectStore =>
  new SignedS3Put({
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'not-the-local-secret' },
    endpoint: s3.endpoint,
    forcePathStyle: true,
    sleep: () => Promise.resolve(),
  });

const newHandler = async (archiveStore: ObjectStore) => {
  const dlqUrl = await sqs.createQueue(`archive-dlq-${Math.random().toString(36).slice(2, 10)}`);
  return createCostLedgerHandler(
    consumerEnvironment({
      streamName: STREAM,
      queueKind: 'standard',
      dlqUrl,
      dedupTableName: tables.dedupTable,
      ledgerTableName: tables.ledgerTable,
      dedupTtlSeconds: 35 * SECONDS_PER_DAY,
      maxConcurrency: 8,
      logLevel: 'SILENT',
      archiveBucketName: BUCKET,
    }),
    { dynamo, sqs: sqs.client, archiveStore },
  );
};

const archivedUnder = async (prefix: string) => {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return Promise.all(
    (listed.Contents ?? []).map(async ({ Key }) => {
      const object = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
      const text = gunzipSync(await object.Body!.transformToByteArray()).toString('utf8');
      return {
        key: String(Key),
        records: text
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as ArchivedRecord),
      };
    }),
  );
};

const batchOf = (account: string) => [
  sqsRecord(costEvent({ accountId: account, amount: '1.10', skuId: 'sku-a' })),
  sqsRecord(costEvent({ accountId: account, amount: '2.20', skuId: 'sku-b' })),
  sqsRecord(costEvent({ accountId: account, amount: '3.30', skuId: 'sku-c' })),
  sqsRecord('not json'),
];

describe('evidence archive against the local S3 and DynamoDB Local', () => {
  it('a crash between the archive write and the acknowledgement: the redelivered batch overwrites its one copy, the ledger counts once', async () => {
    const account = '300000000001';
    const records = batchOf(account);
    const crashed = await (await newHandler(crashAfterPut()))(sqsEvent(records));
    // The invocation could not confirm its archive: every record stays on the queue.
    expect(crashed.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(
      records.map((record) => record.messageId).sort(),
    );
    const afterCrash = await archivedUnder(`${STREAM}/`);
    expect(afterCrash.flatMap((object) => object.records)).toHaveLength(4);

    const again = await (await newHandler(localPut()))(sqsEvent(redelivered(records)));
    expect(again.batchItemFailures).toEqual([]);
    const archived = await archivedUnder(`${STREAM}/`);
    // Same keys, one logical copy of each record.
    expect(archived.map((object) => object.key).sort()).toEqual(
      afterCrash.map((object) => object.key).sort(),
    );
    expect(archived.map((object) => object.key).sort()).toEqual([
      expect.stringMatching(
        /^cost-events\/tenant=_unscoped\/period=_unscoped\/day=\d{4}-\d{2}-\d{2}\/[0-9a-f]{32}\.jsonl\.gz$/,
      ),
      expect.stringMatching(
        /^cost-events\/tenant=acme\/period=2026-11\/day=\d{4}-\d{2}-\d{2}\/[0-9a-f]{32}\.jsonl\.gz$/,
      ),
    ]);
    const lines = archived.flatMap((object) => object.records);
    expect(lines.map((line) => line.messageId).sort()).toEqual(
      records.map((record) => record.messageId).sort(),
    );
    // The current copy tells what the redelivery did: the charges were already in the ledger.
    expect(lines.map((line) => line.outcome).sort()).toEqual([
      'duplicate',
      'duplicate',
      'duplicate',
      'rejected',
    ]);
    const poison = lines.find((line) => line.outcome === 'rejected');
    expect(poison).toMatchObject({ body: 'not json', code: 'malformed-body' });
    expect(poison?.attributes).toMatchObject({ ApproximateReceiveCount: '2' });
    expect(await totalsByCurrency(dynamo, tables.ledgerTable, account)).toEqual({
      USD: { total: '6.6', charges: 3 },
    });
  });

  it('an archive write that fails fails the whole batch: nothing is acknowledged, the retry archives it', async () => {
    const account = '300000000002';
    const records = batchOf(account);
    const refused = await (await newHandler(refusedPut()))(sqsEvent(records));
    expect(refused.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(
      records.map((record) => record.messageId).sort(),
    );
    const ids = new Set(records.map((record) => record.messageId));
    const archivedIds = async () =>
      (await archivedUnder(`${STREAM}/`))
        .flatMap((object) => object.records)
        .filter((line) => ids.has(line.messageId));
    expect(await archivedIds()).toEqual([]);

    const retried = await (await newHandler(localPut()))(sqsEvent(redelivered(records)));
    expect(retried.batchItemFailures).toEqual([]);
    expect((await archivedIds()).map((line) => line.messageId).sort()).toEqual([...ids].sort());
    expect(await totalsByCurrency(dynamo, tables.ledgerTable, account)).toEqual({
      USD: { total: '6.6', charges: 3 },
    });
  });
});
