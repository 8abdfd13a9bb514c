import {
  DynamoDBClient,
  TransactWriteItemsCommand,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { transactWrite } from '../../../../lambda/adapters/dynamo-kit/transact';
import { writeIfCondition } from '../../../../lambda/adapters/dynamo-kit/errors';
import { PermanentError } from '../../../../lambda/core/errors';

const dynamo = mockClient(DynamoDBClient);
const client = new DynamoDBClient({});
const cancelled = (...codes: { Code: string; Message?: string }[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes,
  });

beforeEach(() => dynamo.reset());

describe('transactWrite', () => {
  it('reports a committed transaction', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    expect(await transactWrite(client, [], 'the write')).toEqual({ outcome: 'committed' });
  });

  it('reports the code of each item when a condition or another writer stopped it', async () => {
    const error = cancelled({ Code: 'None' }, { Code: 'ConditionalCheckFailed' });
    dynamo.on(TransactWriteItemsCommand).rejects(error);
    expect(await transactWrite(client, [], 'the write')).toMatchObject({
      outcome: 'cancelled',
      codes: ['None', 'ConditionalCheckFailed'],
      error,
    });
  });

  it('a cancellation of an invalid item is a PermanentError naming the subject and the reason', async () => {
    dynamo
      .on(TransactWriteItemsCommand)
      .rejects(
        cancelled(
          { Code: 'ConditionalCheckFailed' },
          { Code: 'ValidationError', Message: 'too many digits' },
        ),
      );
    const refused = transactWrite(client, [], 'chunk 1.0 of e1 is invalid');
    await expect(refused).rejects.toBeInstanceOf(PermanentError);
    await expect(refused).rejects.toMatchObject({
      code: 'invalid-field',
      reason: 'chunk 1.0 of e1 is invalid: DynamoDB refused the write as invalid: too many digits',
    });
  });

  it('a ValidationException (DynamoDB Local) is a PermanentError too', async () => {
    dynamo
      .on(TransactWriteItemsCommand)
      .rejects(Object.assign(new Error('Number overflow'), { name: 'ValidationException' }));
    await expect(transactWrite(client, [], 'the switch')).rejects.toMatchObject({
      reason: 'the switch: Number overflow',
    });
  });

  it('passes throttling and other failures on unchanged', async () => {
    const throttled = cancelled({ Code: 'ThrottlingError' }, { Code: 'None' });
    dynamo.on(TransactWriteItemsCommand).rejects(throttled);
    await expect(transactWrite(client, [], 'the write')).rejects.toBe(throttled);
  });
});

describe('writeIfCondition', () => {
  it('is false when the condition did not hold, and maps a refused write to a PermanentError', async () => {
    const { ConditionalCheckFailedException } = await import('@aws-sdk/client-dynamodb');
    const failed = new ConditionalCheckFailedException({ message: 'no', $metadata: {} });
    expect(await writeIfCondition(() => Promise.reject(failed), 'the plan')).toBe(false);
    expect(await writeIfCondition(() => Promise.resolve({}), 'the plan')).toBe(true);
    const invalid = Object.assign(new Error('Item size has exceeded'), {
      name: 'ValidationException',
    });
    await expect(
      writeIfCondition(() => Promise.reject(invalid), 'the plan'),
    ).rejects.toBeInstanceOf(PermanentError);
  });
});

describe('ExportStore on an invalid write', () => {
  it('a chunk commit DynamoDB refuses as invalid is a PermanentError (dead-lettered, not retried)', async () => {
    const { ExportStore } = await import('../../../../lambda/adapters/export-store');
    dynamo
      .on(TransactWriteItemsCommand)
      .rejects(cancelled({ Code: 'None' }, { Code: 'ValidationError', Message: 'bad number' }));
    const store = new ExportStore({ client, ledgerTable: 'ledger' });
    const committed = store.commitChunk(
      { tenant: 'acme', source: 'aws', period: '2026-10', executionId: 'e1' },
      {
        chunkId: '0',
        taskIndex: 0,
        fromRow: 0,
        toRow: 1,
        last: true,
        rows: 1,
        rejectedRows: 0,
        rejectedByReason: {},
        samples: [],
        totals: {},
      },
    );
    await expect(committed).rejects.toBeInstanceOf(PermanentError);
    await expect(committed).rejects.toMatchObject({
      reason: 'chunk 0 of e1 is invalid: DynamoDB refused the write as invalid: bad number',
    });
  });
});
