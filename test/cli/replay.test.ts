import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  PublishBatchCommand,
  SNSClient,
  type PublishBatchCommandInput,
  type PublishBatchRequestEntry,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { consumerEnvironment } from '../../contract/environment';
import { COST_STREAM } from '../../contract/streams';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { readAllTotals, readPartitionCharges } from '../../lambda/adapters/ledger-reader';
import { ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import { startLocalS3, type LocalS3 } from '../../local/emulators/s3';
import {
  createLedgerTables,
  localDynamo,
  startLocalSqs,
  type LedgerTables,
  type LocalSqs,
} from '../support/aws-local';
import { costEvent } from '../support/cost-events';
import { costLedgerHandlerOn } from '../support/ledger-harness';
import { sqsEvent, sqsRecord } from '../support/sqs-events';
import { cli } from './helpers';

const BUCKET = 'replay-archive';
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:billing-dedup-test-cost-events';
const ACCOUNT = '500000000001';
const OTHER = '500000000002';

const sns = new SNSClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const snsMock = mockClient(sns);

let s3: LocalS3;
let sqs: LocalSqs;
let dynamo: DynamoDBClient;
let tables: LedgerTables;
/** The archived, tenant-attributed messages a producer sent (some twice). */
let published: { body: string; attributes: Record<string, string> }[];

const archivingHandler = async () =>
  createCostLedgerHandler(
    consumerEnvironment({
      streamName: COST_STREAM,
      queueKind: 'standard',
      dlqUrl: await sqs.createQueue(`replay-dlq-${Math.random().toString(36).slice(2, 10)}`),
      dedupTableName: tables.dedupTable,
      ledgerTableName: tables.ledgerTable,
      logLevel: 'SILENT',
      archiveBucketName: BUCKET,
    }),
    { dynamo, sqs: sqs.client, s3: s3.client },
  );

const deps = () => ({ clients: { dynamo, s3: s3.client, sns } });
const common = ['--archive-bucket', BUCKET, '--table', '', '--topic', TOPIC];
const replayArgs = (...extra: string[]) => [
  'replay',
  '--from-archive',
  '--tenant',
  'acme',
  '--period',
  '2026-11',
  ...common.map((arg) => (arg === '' ? tables.ledgerTable : arg)),
  ...extra,
];

const publishedEntries = (): PublishBatchRequestEntry[] =>
  snsMock
    .commandCalls(PublishBatchCommand)
    .flatMap((call) => call.args[0].input.PublishBatchRequestEntries ?? []);

const attributesOf = (entry: PublishBatchRequestEntry): Record<string, string> =>
  Object.fromEntries(
    Object.entries(entry.MessageAttributes ?? {}).map(([name, value]) => [
      name,
      String(value.StringValue),
    ]),
  );

beforeAll(async () => {
  [s3, sqs] = await Promise.all([startLocalS3({ buckets: [BUCKET] }), startLocalSqs()]);
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  const handler = await archivingHandler();
  const attributes = { producer: 'billing-feed' };
  const charge = (body: Record<string, unknown>, messageId?: string) =>
    sqsRecord(body, { attributes, ...(messageId ? { messageId } : {}) });
  const first = costEvent({ accountId: ACCOUNT, eventId: 'e-1', amount: '0.1' });
  const second = costEvent({ accountId: ACCOUNT, eventId: 'e-2', amount: '0.2' });
  const toVoid = costEvent({ accountId: ACCOUNT, eventId: 'e-void', amount: '7.77' });
  const v1 = costEvent({ accountId: ACCOUNT, lineItemId: 'li-1', version: 1, amount: '10' });
  const v2 = costEvent({ accountId: ACCOUNT, lineItemId: 'li-1', version: 2, amount: '12.50' });
  const euro = costEvent({ accountId: OTHER, eventId: 'e-3', amount: '4.608', currency: 'EUR' });
  published = [first, second, toVoid, v1, v2, euro].map((body) => ({
    body: JSON.stringify(body),
    attributes,
  }));
  const batch = [charge(first, 'm-first'), charge(second), charge(toVoid), charge(v1)];
  const batches = [
    batch,
    // The same batch redelivered (same message ids) and a producer's retry of `first` (new id).
    batch,
    [charge(first), charge(v2), charge(euro), sqsRecord('not json')],
  ];
  for (const records of batches)
    expect((await handler(sqsEvent(records))).batchItemFailures).toEqual([]);
  const pk = ledgerPartitionKeyOf('acme', ACCOUNT, '2026-11');
  const voided = (await readPartitionCharges(dynamo, tables.ledgerTable, pk)).find(
    (candidate) => candidate.identityId === 'e-void',
  );
  await new DynamoPeriods({ client: dynamo, ledgerTable: tables.ledgerTable }).voidCharge({
    tenant: 'acme',
    accountId: ACCOUNT,
    period: '2026-11',
    chargeSk: voided!.sk,
    by: 'arn:aws:iam::123456789012:user/ops',
    reason: 'duplicate order',
    policy: 'roll-forward',
  });
});

beforeEach(() => {
  snsMock.reset();
  snsMock.on(PublishBatchCommand).callsFake((input: PublishBatchCommandInput) => ({
    Successful: (input.PublishBatchRequestEntries ?? []).map((entry) => ({
      Id: entry.Id,
      MessageId: `sns-${entry.Id}`,
    })),
    Failed: [],
  }));
});

afterAll(async () => {
  dynamo.destroy();
  await Promise.all([s3.stop(), sqs.stop()]);
});

describe('replay --from-archive', () => {
  it('--dry-run counts each charge content once and publishes nothing', async () => {
    const result = await cli(replayArgs('--dry-run', '--json'), deps());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      prefix: 'cost-events/tenant=acme/period=2026-11/',
      records: 7, // 4 (the redelivered batch overwrote its object) + 3 (the poison is filed _unscoped)
      events: 6,
      sameContent: 1, // the producer's retry of e-1
      dryRun: true,
    });
    expect(snsMock.commandCalls(PublishBatchCommand)).toHaveLength(0);
  });

  it('re-publishes the archived events with their attributes; delivered again, the ledger does not change', async () => {
    const before = await readAllTotals(dynamo, tables.ledgerTable);
    const result = await cli(replayArgs(), deps());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Published 6 of 6 events to ${TOPIC}`);
    const entries = publishedEntries();
    // In send order (these were sent within the same millisecond: then by message id).
    const byBody = (a: { body: string }, b: { body: string }) => (a.body < b.body ? -1 : 1);
    expect(
      entries
        .map((entry) => ({ body: String(entry.Message), attributes: attributesOf(entry) }))
        .sort(byBody),
    ).toEqual([...published].sort(byBody));

    const handler = await archivingHandler();
    const again = entries.map((entry) =>
      sqsRecord(String(entry.Message), { attributes: attributesOf(entry) }),
    );
    const outcome = await handler(sqsEvent(again));
    expect(outcome.batchItemFailures).toEqual([]);
    expect(await readAllTotals(dynamo, tables.ledgerTable)).toEqual(before);
  });

  it('--rebuild-into: the archived stream charges and the live voids rebuild the live totals exactly', async () => {
    const fresh = `rebuilt-${Math.random().toString(36).slice(2, 10)}`;
    const result = await cli(replayArgs('--rebuild-into', fresh, '--json'), deps());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      tableWas: 'created',
      scope: 'stream charges and export executions',
      voids: 1,
      comparison: { equal: 2, differences: [] },
    });
    const totals = (table: string) =>
      readAllTotals(dynamo, table).then((rows) =>
        rows.map(({ accountId, currency, total, charges }) => ({
          accountId,
          currency,
          total,
          charges,
        })),
      );
    expect(await totals(fresh)).toEqual(await totals(tables.ledgerTable));
    // 0.1 + 0.2 + 12.50 (li-1 restated from 10); e-void's 7.77 voided; e-1's retry counted once.
    expect(
      (await totals(fresh)).map(({ currency, total }) => `${total} ${currency}`).sort(),
    ).toEqual(['12.8 USD', '4.608 EUR']);
  });

  it('--rebuild-into: a charge the archive does not hold is a difference (exit 4), and the table must be fresh', async () => {
    const live = await createLedgerTables(dynamo);
    await costLedgerHandlerOn(
      dynamo,
      live,
    )(sqsEvent([sqsRecord(costEvent({ accountId: ACCOUNT, eventId: 'unarchived', amount: '1' }))]));
    const fresh = `rebuilt-${Math.random().toString(36).slice(2, 10)}`;
    const args = replayArgs('--rebuild-into', fresh).map((arg) =>
      arg === tables.ledgerTable ? live.ledgerTable : arg,
    );
    const result = await cli(args, deps());
    expect(result.code).toBe(4);
    expect(result.stdout).toContain(`differ from ${live.ledgerTable}`);
    // Rebuilt without the live void (this ledger has none): 0.1 + 0.2 + 7.77 + 12.50.
    expect(result.stdout).toMatch(
      new RegExp(`^${ACCOUNT}\\s+USD\\s+1\\s+1\\s+20\\.57\\s+\\d+$`, 'm'),
    );

    const again = await cli(args, deps());
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/holds items: a rebuild needs a fresh table/);
  });

  it('requires --from-archive', async () => {
    const result = await cli(
      replayArgs('--dry-run').filter((arg) => arg !== '--from-archive'),
      deps(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/pass --from-archive/);
  });
});
