/**
 * Stream-versus-export drift on DynamoDB Local: an export switch that supersedes a provider's stream
 * charges records, per account-period, what the stream said and what the export says, and notifies it
 * once (kind `provisional-drift`) above the threshold — also when the switch is delivered again.
 */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { readDrifts } from '../../lambda/adapters/export-drift';
import { SnsDiffNotifier } from '../../lambda/adapters/sns-diff-notifier';
import { processCostBatch } from '../../lambda/core/cost-processor';
import { processTaskBatch, type TaskBatchOptions } from '../../lambda/core/exports/task-batch';
import { taskMessageBody } from '../../lambda/core/exports/task-message';
import { costEvent } from '../support/cost-events';
import {
  csvOf,
  csvRowsOf,
  hourLine,
  planDelivery,
  type PlannedDelivery,
} from '../support/export-pipeline';
import { useExportLedger } from '../support/file-fixtures';
import { lambdaContext, sqsRecord } from '../support/sqs-events';

const A = '200000000051';
const B = '200000000052';
const OCT = '2026-10';
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:notifications';

const ledger = useExportLedger();
const sns = new SNSClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const snsMock = mockClient(sns);
beforeEach(() => {
  snsMock.reset();
  snsMock.on(PublishCommand).resolves({ MessageId: 'published' });
});

let tenants = 0;
const freshTenant = () => `drift-${(tenants += 1)}`;

/** Stream charges of `source` in October for `account`, one record each. */
const streamCharges = async (
  tenant: string,
  account: string,
  source: string,
  charges: [string, string][],
) => {
  const outcome = await processCostBatch(
    charges.map(([id, amount]) =>
      sqsRecord(
        costEvent({
          tenant,
          source,
          accountId: account,
          eventId: id,
          amount,
          chargePeriodStart: `${OCT}-05T00:00:00Z`,
        }),
      ),
    ),
    {
      fifo: false,
      concurrency: 1,
      ledger: new DynamoLedger({ client: ledger.dynamo, ledgerTable: ledger.tables.ledgerTable }),
      deadLetters: { send: async () => {} },
    },
  );
  expect(outcome.results.map((result) => result.outcome)).toEqual(charges.map(() => 'applied'));
};

/** An October export of the tenant's prefix: one hour line per [account, amount]. */
const plan = (tenant: string, lines: [string, string][]): Promise<PlannedDelivery> =>
  planDelivery(ledger.store, {
    tenant,
    prefix: tenant,
    executionId: 'e1',
    period: OCT,
    eventTime: '2026-11-02T06:00:00.000Z',
    sequencer: '0A',
    files: {
      'part-0.csv': csvOf(
        lines.map(([account, amount], hour) =>
          hourLine(amount, account, 'EC2', hour, { period: OCT }),
        ),
      ),
    },
  });

/** The chunk worker's batch on the real store and notifier (dedup table on DynamoDB Local). */
const deliverTask = (planned: PlannedDelivery, messageId: string) => {
  const notifier = new SnsDiffNotifier({
    sns,
    dynamo: ledger.dynamo,
    topicArn: TOPIC,
    dedupTable: ledger.tables.dedupTable,
    stream: 'export-chunks',
    ttlSeconds: 3600,
  });
  notifier.useContext(lambdaContext(30_000));
  const options: TaskBatchOptions = {
    concurrency: 1,
    bucket: 'exports',
    sources: [{ tenant: planned.plan.tenant, bucket: 'exports', prefix: planned.plan.tenant }],
    store: ledger.store,
    openRows: (_bucket, task, fromRow) =>
      csvRowsOf(planned.texts.get(task.objectKey) ?? '', fromRow)(),
    subChunkRows: 100,
    threshold: '1000000',
    notifier,
    deadLetters: { send: async () => {} },
    defaultProvider: 'aws',
    provisionalDrift: { store: ledger.store, threshold: { ratio: '0.01', floor: '1' } },
  };
  const [task] = planned.plan.tasks;
  return processTaskBatch(
    [{ messageId, body: taskMessageBody({ bucket: 'exports', ref: planned.ref, task }) }],
    options,
  );
};

const drifts = (tenant: string, account: string) =>
  readDrifts(ledger.dynamo, ledger.tables.ledgerTable, tenant, account, OCT);

const published = () => snsMock.commandCalls(PublishCommand).map((call) => call.args[0].input);

describe('stream-versus-export drift at an export switch (DynamoDB Local)', () => {
  it('records what the stream said and what the export says; notifies once above the threshold, also when the switch is redelivered', async () => {
    const tenant = freshTenant();
    await streamCharges(tenant, A, 'aws', [
      ['s-1', '7.00'],
      ['s-2', '3.00'],
    ]);
    await streamCharges(tenant, A, 'metering', [['m-1', '50']]);
    const planned = await plan(tenant, [
      [A, '6.20'],
      [A, '6.20'],
    ]);

    const first = await deliverTask(planned, 'm-1');
    expect(first.results[0]).toMatchObject({
      outcome: 'applied',
      provisionalDrift: { accounts: 1, above: 1, notified: 1, largestDifference: '2.4' },
    });
    const [record] = await drifts(tenant, A);
    expect(record).toEqual({
      tenant,
      accountId: A,
      period: OCT,
      source: planned.ref.source,
      executionId: 'e1',
      switchedAt: expect.any(String),
      provider: 'aws',
      above: true,
      threshold: { ratio: '0.01', floor: '1' },
      currencies: [
        {
          currency: 'USD',
          stream: '10',
          streamCharges: 2,
          export: '12.4',
          exportCharges: 2,
          difference: '-2.4',
          ratio: '0.1935483871',
          above: true,
        },
      ],
    });
    expect(published()).toHaveLength(1);
    expect(published()[0]).toMatchObject({
      TopicArn: TOPIC,
      Subject: `Stream vs export drift: ${tenant} ${OCT} ${A}`,
      MessageAttributes: {
        kind: { DataType: 'String', StringValue: 'provisional-drift' },
        tenant: { DataType: 'String', StringValue: tenant },
        account: { DataType: 'String', StringValue: A },
      },
    });

    // A late stream charge, then the switch delivered again: the record stays as the switch made it,
    // and nothing is sent twice.
    await streamCharges(tenant, A, 'aws', [['s-late', '2.40']]);
    const again = await deliverTask(planned, 'm-1-again');
    expect(again.results[0]).toMatchObject({
      provisionalDrift: { accounts: 1, above: 1, notified: 0 },
    });
    expect(await drifts(tenant, A)).toEqual([record]);
    expect(published()).toHaveLength(1);
  });

  it('records a drift within the threshold without notifying; an account without stream charges gets no record', async () => {
    const tenant = freshTenant();
    await streamCharges(tenant, A, 'aws', [['s-1', '100.00']]);
    const planned = await plan(tenant, [
      [A, '100.50'],
      [B, '40'],
    ]);

    const outcome = await deliverTask(planned, 'm-1');
    expect(outcome.results[0]).toMatchObject({
      provisionalDrift: { accounts: 1, above: 0, notified: 0, largestDifference: '0.5' },
    });
    expect(await drifts(tenant, A)).toMatchObject([
      {
        above: false,
        currencies: [{ currency: 'USD', stream: '100', export: '100.5', difference: '-0.5' }],
      },
    ]);
    expect(await drifts(tenant, B)).toEqual([]);
    expect(published()).toEqual([]);
  });
});
