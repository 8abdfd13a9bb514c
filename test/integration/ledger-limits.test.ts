/** Amounts at DynamoDB's limits: nothing rounded, nothing that blocks a ledger partition. */
import {
  PutItemCommand,
  TransactionCanceledException,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { SECONDS_PER_DAY, consumerEnvironment } from '../../contract/environment';
import { ledgerLayout, shardOf, totalShardSortKey } from '../../lambda/adapters/table-layout';
import { parseCharge } from '../../lambda/core/cost-processor';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import {
  createLedgerTables,
  localDynamo,
  startLocalSqs,
  type LedgerTables,
  type LocalSqs,
  type Middleware,
} from '../support/aws-local';
import { costEvent } from '../support/cost-events';
import { acmePartition, receiveWaiting, totalsByCurrency } from '../support/ledger-checks';
import { sqsEvent, sqsRecord } from '../support/sqs-events';

let sqs: LocalSqs;
let tables: LedgerTables;
let dynamo: DynamoDBClient;
let cancelLikeAws = false;

/**
 * DynamoDB Local answers an invalid item in a transaction with a ValidationException; DynamoDB cancels
 * the transaction instead (TransactionCanceledException, reason code ValidationError on the item).
 */
const awsCancellationShape: Middleware = (next, context) => async (args) => {
  try {
    return await next(args);
  } catch (error) {
    const invalid = error instanceof Error && error.name === 'ValidationException';
    if (!cancelLikeAws || !invalid || context.commandName !== 'TransactWriteItemsCommand') {
      throw error;
    }
    const items = (args.input as { TransactItems?: { Update?: unknown }[] }).TransactItems ?? [];
    throw new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
      $metadata: {},
      CancellationReasons: items.map((item) =>
        item.Update ? { Code: 'ValidationError', Message: error.message } : { Code: 'None' },
      ),
    });
  }
};

beforeAll(async () => {
  sqs = await startLocalSqs();
  dynamo = localDynamo({ middleware: awsCancellationShape });
  tables = await createLedgerTables(dynamo);
});

afterAll(async () => {
  dynamo.destroy();
  await sqs.stop();
});

const newHandler = async () => {
  const dlqUrl = await sqs.createQueue(`limits-dlq-${Math.random().toString(36).slice(2, 10)}`);
  const handler = createCostLedgerHandler(
    consumerEnvironment({
      streamName: 'cost-events',
      queueKind: 'standard',
      dlqUrl,
      dedupTableName: tables.dedupTable,
      ledgerTableName: tables.ledgerTable,
      dedupTtlSeconds: 35 * SECONDS_PER_DAY,
      maxConcurrency: 4,
      logLevel: 'SILENT',
    }),
    { dynamo, sqs: sqs.client },
  );
  return { handler, dlqUrl };
};

const partition = acmePartition;
const totalsOf = (account: string) => totalsByCurrency(dynamo, tables.ledgerTable, account);
const deadLetters = async (queueUrl: string) =>
  (await receiveWaiting(sqs.client, queueUrl)).map((message) => ({
    body: message.Body,
    code: message.MessageAttributes?.['rejection-code']?.StringValue,
    field: message.MessageAttributes?.['rejection-field']?.StringValue,
    reason: message.MessageAttributes?.['rejection-reason']?.StringValue ?? '',
  }));

describe('ledger amounts at DynamoDB limits (DynamoDB Local)', () => {
  it('an amount of 38 nines is rejected with its field; later charges of its partition still apply', async () => {
    const { handler, dlqUrl } = await newHandler();
    const account = 'acct-huge';
    const huge = sqsRecord(costEvent({ accountId: account, amount: '9'.repeat(38), skuId: 'a' }));
    const later = ['1.5', '0.000000000000000001'].map((amount, index) =>
      sqsRecord(costEvent({ accountId: account, amount, skuId: `later-${index}` })),
    );
    expect((await handler(sqsEvent([huge]))).batchItemFailures).toEqual([]);
    expect((await handler(sqsEvent(later))).batchItemFailures).toEqual([]);
    expect(await totalsOf(account)).toEqual({
      USD: { total: '1.500000000000000001', charges: 2 },
    });
    const [dead] = await deadLetters(dlqUrl);
    expect(dead).toMatchObject({ body: huge.body, code: 'invalid-field', field: 'amount' });
    expect(dead.reason).toMatch(/10\^15/);
  });

  it('JSON-number amounts are booked digit for digit, never through a double', async () => {
    const { handler } = await newHandler();
    const account = 'acct-json-number';
    const body = (amount: string, sku: string) =>
      JSON.stringify(costEvent({ accountId: account, amount: 0, skuId: sku })).replace(
        '"amount":0',
        `"amount":${amount}`,
      );
    const amounts = [
      '0.100000000000000001',
      '900719925474099.3',
      '123456789012345.678901234567890123',
    ];
    const response = await handler(
      sqsEvent(amounts.map((amount, index) => sqsRecord(body(amount, `sku-${index}`)))),
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(await totalsOf(account)).toEqual({
      USD: { total: '1024176714486445.078901234567890124', charges: 3 },
    });
  });

  it.each([
    ['a ValidationException (DynamoDB Local)', false],
    ['a transaction cancelled with a ValidationError reason (DynamoDB)', true],
  ])('a write refused with %s goes to the DLQ with its reason, not retried', async (_, aws) => {
    cancelLikeAws = aws;
    const { handler, dlqUrl } = await newHandler();
    const account = `acct-full-total-${aws ? 'aws' : 'local'}`;
    const charge = sqsRecord(costEvent({ accountId: account, amount: '0.5' }));
    // A total at the edge of DynamoDB's 38 digits (written before amounts were capped, or by hand),
    // on the shard the charge adds to.
    const { ref } = parseCharge(ledgerLayout(), charge);
    await dynamo.send(
      new PutItemCommand({
        TableName: tables.ledgerTable,
        Item: {
          pk: { S: partition(account) },
          sk: { S: totalShardSortKey(shardOf(ref.sk.slice('CHARGE#'.length), 8)) },
          'total:USD': { N: '9'.repeat(38) },
          'charges:USD': { N: '1' },
        },
      }),
    );
    const other = sqsRecord(costEvent({ accountId: 'acct-unaffected', amount: '2' }));
    const response = await handler(sqsEvent([charge, other]));
    cancelLikeAws = false;
    expect(response.batchItemFailures).toEqual([]);
    expect(await totalsOf('acct-unaffected')).toEqual({ USD: { total: '2', charges: 1 } });
    expect(await totalsOf(account)).toEqual({ USD: { total: '9'.repeat(38), charges: 1 } });
    const dead = await deadLetters(dlqUrl);
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ body: charge.body, code: 'invalid-field' });
    expect(dead[0].reason).toMatch(/^the ledger rejected the charge: .*precision up to 38 digits/);
  });
});
