import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import Big from 'big.js';
import {
  SECONDS_PER_DAY,
  consumerEnvironment,
  type ConsumerEnvironment,
} from '../../contract/environment';
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { readPartitionCharges, readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import { ledgerLayout } from '../../lambda/adapters/table-layout';
import { parseCharge } from '../../lambda/core/cost-processor';
import { fifoGroupId } from '../../lambda/core/keys';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import type { SQSRecord } from 'aws-lambda';
import {
  createLedgerTables,
  localDynamo,
  RequestCounter,
  startLocalSqs,
  type LedgerTables,
  type LocalSqs,
  type Middleware,
} from '../support/aws-local';
import { newChargeCommit } from '../support/charge-commits';
import { costEvent } from '../support/cost-events';
import { acmePartition, receiveWaiting, totalsByCurrency } from '../support/ledger-checks';
import { snsEnvelope, sqsEvent, sqsRecord } from '../support/sqs-events';

const STREAM = 'cost-events';
const PK = 'TENANT#acme#ACCOUNT#200000000011#PERIOD#2026-11';

let sqs: LocalSqs;
let tables: LedgerTables;
let dynamo: DynamoDBClient;
const counter = new RequestCounter();
let throttleAccount: string | undefined;
let throttleSku: string | undefined;

/** Fault injection from outside the production code: throttle every transaction touching one account or SKU. */
const throttling: Middleware = (next, context) => async (args) => {
  const input = args.input as {
    TransactItems?: { Put?: { Item?: { accountId?: { S?: string }; skuId?: { S?: string } } } }[];
  };
  const touches = input.TransactItems?.some(
    (item) =>
      (throttleAccount !== undefined && item.Put?.Item?.accountId?.S === throttleAccount) ||
      (throttleSku !== undefined && item.Put?.Item?.skuId?.S === throttleSku),
  );
  if (context.commandName === 'TransactWriteItemsCommand' && touches) {
    throw Object.assign(new Error('Rate exceeded'), {
      name: 'ProvisionedThroughputExceededException',
      $fault: 'client',
    });
  }
  return next(args);
};

beforeAll(async () => {
  sqs = await startLocalSqs();
  dynamo = localDynamo({ counter, middleware: throttling });
  tables = await createLedgerTables(dynamo);
});

afterAll(async () => {
  dynamo.destroy();
  await sqs.stop();
});

beforeEach(() => {
  counter.reset();
  throttleAccount = undefined;
  throttleSku = undefined;
});

const newHandler = async (fifo = false, environment: ConsumerEnvironment = {}) => {
  const dlqName = `cost-dlq-${Math.random().toString(36).slice(2, 10)}${fifo ? '.fifo' : ''}`;
  const dlqUrl = await sqs.createQueue(dlqName, fifo ? { FifoQueue: 'true' } : {});
  const handler = createCostLedgerHandler(
    consumerEnvironment({
      streamName: STREAM,
      queueKind: fifo ? 'fifo' : 'standard',
      dlqUrl,
      dedupTableName: tables.dedupTable,
      ledgerTableName: tables.ledgerTable,
      dedupTtlSeconds: 35 * SECONDS_PER_DAY,
      maxConcurrency: 8,
      logLevel: 'SILENT',
      ...environment,
    }),
    { dynamo, sqs: sqs.client },
  );
  return { handler, dlqUrl };
};

const partition = acmePartition;
const totalsOf = (account: string) => totalsByCurrency(dynamo, tables.ledgerTable, account);
const drainDlq = (queueUrl: string) => receiveWaiting(sqs.client, queueUrl);

/** The ledger adapter on the test tables, for tests that drive commits directly. */
const directLedger = () =>
  new DynamoLedger({
    client: dynamo,
    ledgerTable: tables.ledgerTable,
  });

describe('cost ledger handler against DynamoDB Local', () => {
  it('applies a new charge with one pre-read and one transaction; a reformatted re-publish costs no write', async () => {
    const { handler } = await newHandler();
    const envelopeSubscription = (await newHandler(false, { deliveryMode: 'envelope' })).handler;
    const account = 'acct-requests';
    const first = await handler(
      sqsEvent([sqsRecord(costEvent({ accountId: account, amount: '12.30' }))]),
    );
    expect(first.batchItemFailures).toEqual([]);
    expect(counter.snapshot()).toEqual({ BatchGetItemCommand: 1, TransactWriteItemsCommand: 1 });

    counter.reset();
    const reordered = JSON.stringify({
      currency: 'usd',
      amount: 12.3,
      ...costEvent({ accountId: account, amount: '1.23e1' }),
    });
    await envelopeSubscription(sqsEvent([sqsRecord(snsEnvelope(reordered))]));
    expect(counter.snapshot()).toEqual({ BatchGetItemCommand: 1 });
    expect(await totalsOf(account)).toEqual({ USD: { total: '12.3', charges: 1 } });
  });

  it('commits a batch of new charges in one grouped transaction with one total update per currency', async () => {
    const { handler } = await newHandler();
    const account = 'acct-grouped';
    const records = ['1.1', '2.2', '3.3', '4.4', '5.5', '6.6', '7.7', '8.8'].map((amount, index) =>
      sqsRecord(costEvent({ accountId: account, amount, skuId: `sku-${index}` })),
    );
    records.push(sqsRecord(costEvent({ accountId: account, amount: '9.9', currency: 'EUR' })));
    records.push(sqsRecord(costEvent({ accountId: account, amount: '1.1', skuId: 'sku-0' })));
    const response = await handler(sqsEvent(records));
    expect(response.batchItemFailures).toEqual([]);
    // A new environment of a standard queue assumes races (STANDARD_QUEUE_LOSS_PRIOR): it leases the
    // 9 distinct charges of one partition first (the copy of sku-0 is decided in memory).
    expect(counter.snapshot()).toEqual({
      BatchGetItemCommand: 1,
      PutItemCommand: 9,
      TransactWriteItemsCommand: 1,
    });
    expect(await totalsOf(account)).toEqual({
      USD: { total: '39.6', charges: 8 },
      EUR: { total: '9.9', charges: 1 },
    });
  });

  it("a standard queue's environment stops leasing once its batches show no races", async () => {
    const { handler } = await newHandler();
    const batchOf = (account: string) =>
      sqsEvent(
        ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'].map((amount, index) =>
          sqsRecord(costEvent({ accountId: account, amount, skuId: `sku-${index}` })),
        ),
      );
    const leasesPerBatch: number[] = [];
    for (const account of ['acct-fade-1', 'acct-fade-2', 'acct-fade-3']) {
      counter.reset();
      expect((await handler(batchOf(account))).batchItemFailures).toEqual([]);
      leasesPerBatch.push(counter.snapshot().PutItemCommand ?? 0);
      expect(await totalsOf(account)).toEqual({ USD: { total: '55', charges: 10 } });
    }
    expect(leasesPerBatch).toEqual([10, 10, 0]);
  });

  it("a FIFO queue's environment starts without leases (one batch of a group in flight)", async () => {
    const { handler } = await newHandler(true);
    const account = 'acct-fifo-grouped';
    const records = ['1', '2', '3', '4', '5'].map((amount, index) =>
      sqsRecord(costEvent({ accountId: account, amount, skuId: `sku-${index}` }), {
        groupId: fifoGroupId('acme', account),
      }),
    );
    expect((await handler(sqsEvent(records))).batchItemFailures).toEqual([]);
    expect(counter.snapshot()).toEqual({ BatchGetItemCommand: 1, TransactWriteItemsCommand: 1 });
  });

  it('restates a line item by its delta with one pre-read and one transaction, even out of order', async () => {
    const { handler } = await newHandler();
    const account = 'acct-restate';
    const v1 = costEvent({ accountId: account, lineItemId: 'li-1', version: 1, amount: '0.107' });
    const v2 = costEvent({ accountId: account, lineItemId: 'li-1', version: 2, amount: '0.0749' });
    await handler(sqsEvent([sqsRecord(v1)]));
    counter.reset();
    await handler(sqsEvent([sqsRecord(v2)]));
    expect(counter.snapshot()).toEqual({ BatchGetItemCommand: 1, TransactWriteItemsCommand: 1 });
    expect(await totalsOf(account)).toEqual({ USD: { total: '0.0749', charges: 1 } });

    const other = 'acct-out-of-order';
    const first = await handler(sqsEvent([sqsRecord({ ...v2, accountId: other })]));
    const second = await handler(sqsEvent([sqsRecord({ ...v1, accountId: other })]));
    expect([first.batchItemFailures, second.batchItemFailures]).toEqual([[], []]);
    expect(await totalsOf(other)).toEqual({ USD: { total: '0.0749', charges: 1 } });
    const charges = await readPartitionCharges(dynamo, tables.ledgerTable, partition(other));
    expect(charges).toEqual([
      expect.objectContaining({ version: 2, amount: '0.0749', identityId: 'li-1' }),
    ]);
  });

  it('32 concurrent commits of one charge: exactly one wins, the total counts it once', async () => {
    const ledger = directLedger();
    const commit = newChargeCommit({ accountId: 'acct-race', amount: '5.5' });
    const results = await Promise.all(Array.from({ length: 32 }, () => ledger.commit(commit)));
    expect(results.filter((result) => result === 'committed')).toHaveLength(1);
    expect(await totalsOf('acct-race')).toEqual({ USD: { total: '5.5', charges: 1 } });
  });

  it('names the commits of a grouped transaction that lost their race', async () => {
    const ledger = directLedger();
    const commits = ['1', '2', '3'].map((amount) =>
      newChargeCommit({ accountId: 'acct-losers', amount, skuId: amount }),
    );
    expect(await ledger.commit(commits[1])).toBe('committed');
    // The loser's charge comes back with the cancellation, as the ledger holds it: no re-read needed.
    expect(await ledger.commitGroup(commits)).toEqual({
      result: 'lost-race',
      losers: [1],
      current: new Map([
        [
          1,
          {
            version: 0,
            contentHash: commits[1].contentHash,
            amount: '2',
            currency: 'USD',
            attributed: true,
          },
        ],
      ]),
    });
    expect(await ledger.commitGroup([commits[0], commits[2]])).toEqual({ result: 'committed' });
    expect(await totalsOf('acct-losers')).toEqual({ USD: { total: '6', charges: 3 } });
  });

  it('16 concurrent invocations of one batch apply every charge exactly once with exact totals', async () => {
    const { handler } = await newHandler();
    const amounts = ['0.1', '0.2', '0.3', '1234.5678901234', '-25', '0.0000000001', '7', '99.99'];
    const bodies = [
      ...amounts.map((amount, index) =>
        costEvent({ accountId: 'acct-16', amount, skuId: `sku-${index}` }),
      ),
      costEvent({ accountId: 'acct-16', lineItemId: 'li-16', version: 1, amount: '10' }),
      costEvent({ accountId: 'acct-16', lineItemId: 'li-16', version: 2, amount: '12.5' }),
    ];
    const batch = sqsEvent(bodies.map((body) => sqsRecord(body)));
    const applied: string[] = [];
    let pending: SQSRecord[][] = Array.from({ length: 16 }, () => batch.Records);
    for (let round = 0; round < 10 && pending.length > 0; round++) {
      const responses = await Promise.all(pending.map((records) => handler(sqsEvent(records))));
      pending = responses
        .map((response, index) =>
          pending[index].filter((record) =>
            response.batchItemFailures.some((f) => f.itemIdentifier === record.messageId),
          ),
        )
        .filter((records) => records.length > 0);
    }
    expect(pending).toEqual([]);
    const expected = amounts.reduce((sum, amount) => sum.plus(amount), new Big('12.5'));
    expect(await totalsOf('acct-16')).toEqual({
      USD: { total: expected.toFixed().replace(/\.?0+$/, ''), charges: 9 },
    });
    applied.push(
      ...(await readPartitionCharges(dynamo, tables.ledgerTable, partition('acct-16'))).map(
        (c) => c.amount,
      ),
    );
    expect(applied.sort()).toEqual([...amounts, '12.5'].sort());
  });

  it('an eventId seen with different content is a conflict: nothing applied, message in the DLQ with its reason', async () => {
    const { handler, dlqUrl } = await newHandler();
    const account = 'acct-conflict';
    await handler(
      sqsEvent([sqsRecord(costEvent({ accountId: account, eventId: 'evt-1', amount: '10' }))]),
    );
    const conflicting = sqsRecord(
      costEvent({ accountId: account, eventId: 'evt-1', amount: '11' }),
    );
    const response = await handler(sqsEvent([conflicting]));
    expect(response.batchItemFailures).toEqual([]);
    expect(await totalsOf(account)).toEqual({ USD: { total: '10', charges: 1 } });
    const [dead] = await drainDlq(dlqUrl);
    expect(dead.Body).toBe(conflicting.body);
    expect(dead.MessageAttributes?.['rejection-code']?.StringValue).toBe('conflict');
    expect(dead.MessageAttributes?.['rejection-field']?.StringValue).toBe('eventId');
    expect(dead.MessageAttributes?.['rejection-reason']?.StringValue).toMatch(/different content/);
    expect(dead.MessageAttributes?.['source-message-id']?.StringValue).toBe(conflicting.messageId);
  });

  it('a poison message goes to the DLQ byte for byte with its reason and is acked', async () => {
    const { handler, dlqUrl } = await newHandler();
    const poison = sqsRecord('{"accountId": "1", "amount": "twelve", "currency": "USD"}', {
      attributes: { tenant: 'acme' },
    });
    const good = sqsRecord(costEvent({ accountId: 'acct-poison', amount: '3' }));
    const response = await handler(sqsEvent([poison, good]));
    expect(response.batchItemFailures).toEqual([]);
    const messages = await drainDlq(dlqUrl);
    expect(messages).toHaveLength(1);
    expect(messages[0].Body).toBe(poison.body);
    expect(messages[0].MessageAttributes?.['rejection-code']?.StringValue).toMatch(/format|field/);
    expect(messages[0].MessageAttributes?.tenant?.StringValue).toBe('acme');
    expect(await totalsOf('acct-poison')).toEqual({ USD: { total: '3', charges: 1 } });
  });

  it('a poison message redelivered after a lost ack is forwarded to the DLQ once', async () => {
    const { handler, dlqUrl } = await newHandler();
    const poison = sqsRecord('{"accountId": "1", "amount": "NaN?", "currency": "USD"}');
    const redelivered = {
      ...poison,
      attributes: { ...poison.attributes, ApproximateReceiveCount: '2' },
    };
    expect((await handler(sqsEvent([poison]))).batchItemFailures).toEqual([]);
    expect((await handler(sqsEvent([redelivered]))).batchItemFailures).toEqual([]);
    const messages = await drainDlq(dlqUrl);
    expect(messages.map((message) => message.Body)).toEqual([poison.body]);
  });

  it('a poison message whose DLQ send fails is reported as a batch item failure, not lost', async () => {
    const handler = createCostLedgerHandler(
      consumerEnvironment({
        streamName: STREAM,
        dlqUrl: `${sqs.endpoint}/123456789012/no-such-queue`,
        dedupTableName: tables.dedupTable,
        ledgerTableName: tables.ledgerTable,
        logLevel: 'SILENT',
      }),
      { dynamo, sqs: sqs.client },
    );
    const poison = sqsRecord('not json at all');
    expect((await handler(sqsEvent([poison]))).batchItemFailures).toEqual([
      { itemIdentifier: poison.messageId },
    ]);
  });

  it('a throttled record fails alone; the rest of the batch is applied', async () => {
    const { handler } = await newHandler();
    throttleAccount = 'acct-throttled';
    const throttled = sqsRecord(costEvent({ accountId: 'acct-throttled', amount: '1' }));
    const others = ['2', '3'].map((amount) =>
      sqsRecord(costEvent({ accountId: 'acct-not-throttled', amount })),
    );
    const response = await handler(sqsEvent([others[0], throttled, others[1]]));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: throttled.messageId }]);
    expect(await totalsOf('acct-not-throttled')).toEqual({ USD: { total: '5', charges: 2 } });
    expect(await totalsOf('acct-throttled')).toEqual({});
    throttleAccount = undefined;
    expect((await handler(sqsEvent([throttled]))).batchItemFailures).toEqual([]);
    expect(await totalsOf('acct-throttled')).toEqual({ USD: { total: '1', charges: 1 } });
  });

  it('FIFO: after a failure in a group the rest of that group is failed unprocessed; other groups go on', async () => {
    const { handler } = await newHandler(true);
    throttleSku = 'sku-throttled';
    const a = ['1', '2', '3'].map((amount, index) =>
      sqsRecord(
        costEvent({
          accountId: 'acct-fifo-a',
          amount,
          skuId: index === 1 ? 'sku-throttled' : `sku-${amount}`,
        }),
        { groupId: fifoGroupId('acme', 'acct-fifo-a') },
      ),
    );
    const b = ['4', '5'].map((amount) =>
      sqsRecord(costEvent({ accountId: 'acct-fifo-b', amount }), {
        groupId: fifoGroupId('acme', 'acct-fifo-b'),
      }),
    );
    const response = await handler(sqsEvent([a[0], b[0], a[1], b[1], a[2]]));
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: a[1].messageId },
      { itemIdentifier: a[2].messageId },
    ]);
    expect(await totalsOf('acct-fifo-a')).toEqual({ USD: { total: '1', charges: 1 } });
    expect(await totalsOf('acct-fifo-b')).toEqual({ USD: { total: '9', charges: 2 } });
  });

  it('copies of one charge in one batch: the second is a duplicate resolved in memory', async () => {
    const { handler } = await newHandler();
    const body = costEvent({ accountId: 'acct-in-batch', amount: '4.2' });
    const response = await handler(
      sqsEvent([sqsRecord(body), sqsRecord(body), sqsRecord({ ...body, amount: '4.20' })]),
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(counter.snapshot()).toEqual({ BatchGetItemCommand: 1, TransactWriteItemsCommand: 1 });
    expect(await totalsOf('acct-in-batch')).toEqual({ USD: { total: '4.2', charges: 1 } });
  });

  it('keeps tenants apart: the same charge for two tenants lands twice, in two partitions', async () => {
    const { handler } = await newHandler();
    const body = costEvent({ accountId: 'acct-shared', amount: '1' });
    await handler(sqsEvent([sqsRecord(body), sqsRecord({ ...body, tenant: 'globex' })]));
    expect(await totalsOf('acct-shared')).toEqual({ USD: { total: '1', charges: 1 } });
    const globex = await readPartitionTotals(
      dynamo,
      tables.ledgerTable,
      'TENANT#globex#ACCOUNT#acct-shared#PERIOD#2026-11',
    );
    expect(globex.map((t) => t.total)).toEqual(['1']);
  });

  it('uses the documented partition key', () => {
    expect(parseCharge(ledgerLayout(), sqsRecord(costEvent({ amount: '1' }))).ref.pk).toBe(PK);
  });
});
