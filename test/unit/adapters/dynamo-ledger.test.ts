import {
  BatchGetItemCommand,
  DynamoDBClient,
  GetItemCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoLedger } from '../../../lambda/adapters/dynamo-ledger';
import { PermanentError } from '../../../lambda/core/errors';
import { refKey, type ChargeCommit } from '../../../lambda/core/ports';
import { newChargeCommit } from '../../support/charge-commits';

const NOW_MS = Date.parse('2026-11-30T12:00:00Z');

const client = new DynamoDBClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const dynamo = mockClient(client);

const ledger = () =>
  new DynamoLedger({
    client,
    ledgerTable: 'ledger',
    now: () => NOW_MS,
  });

const sentItems = (call = 0): TransactWriteItem[] =>
  dynamo.commandCalls(TransactWriteItemsCommand)[call].args[0].input.TransactItems ?? [];

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

beforeEach(() => dynamo.reset());

/** What a shard Update adds: attribute name → exact value (`seq` included). */
const shardAdds = (item: TransactWriteItem): Record<string, string> => {
  const update = item.Update!;
  const names = update.ExpressionAttributeNames ?? {};
  const values = update.ExpressionAttributeValues ?? {};
  const adds = /^ADD (.*) SET /.exec(update.UpdateExpression ?? '')?.[1] ?? '';
  return Object.fromEntries(
    adds.split(', ').map((pair) => {
      const [name, value] = pair.split(' ');
      return [names[name] ?? name, values[value]?.N ?? ''];
    }),
  );
};

const digestOf = (commit: ChargeCommit) => commit.ref.sk.slice('CHARGE#'.length);
const homeShard = (commit: ChargeCommit, shards = 8) =>
  `TOTAL#${String(Number.parseInt(digestOf(commit).slice(0, 8), 16) % shards).padStart(2, '0')}`;

describe('DynamoLedger.commit builds one transaction: charge, totals', () => {
  it('writes a new charge only if absent and adds the exact amount to the total, nothing else', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const commit = newChargeCommit({ amount: '12.3456789012', eventId: 'evt-1' });

    expect(await ledger().commit(commit)).toBe('committed');

    const [charge, total, ...rest] = sentItems();
    expect(rest).toEqual([]);
    expect(charge.Put).toMatchObject({
      TableName: 'ledger',
      Item: {
        pk: { S: commit.ref.pk },
        sk: { S: commit.ref.sk },
        amount: { N: '12.3456789012' },
        currency: { S: 'USD' },
        identityKind: { S: 'event' },
        identityId: { S: 'evt-1' },
        period: { S: '2026-11' },
        updatedAt: { S: '2026-11-30T12:00:00.000Z' },
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(total.Update).toMatchObject({
      TableName: 'ledger',
      Key: { pk: { S: commit.ref.pk }, sk: { S: homeShard(commit) } },
      ConditionExpression: 'attribute_not_exists(closedAt)',
    });
    expect(shardAdds(total)).toEqual({
      seq: '1',
      'total:USD': '12.3456789012',
      'charges:USD': '1',
    });
  });

  it('spreads charges over the configured number of shards by their identity', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const commits = Array.from({ length: 64 }, (_, index) =>
      newChargeCommit({ amount: '1', eventId: `evt-${index}` }),
    );
    const shardLedger = new DynamoLedger({
      client,
      ledgerTable: 'ledger',
      totalShards: 4,
    });
    for (const commit of commits) await shardLedger.commit(commit);
    const shards = commits.map((_, call) => sentItems(call)[1].Update?.Key?.sk?.S);
    expect(shards).toEqual(commits.map((commit) => homeShard(commit, 4)));
    expect(new Set(shards)).toEqual(new Set(['TOTAL#00', 'TOTAL#01', 'TOTAL#02', 'TOTAL#03']));
  });

  it('a retry after contention moves to the next shard, nothing else changes', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const commit = newChargeCommit({ amount: '1', eventId: 'evt-retry' });
    await ledger().commit(commit);
    await ledger().commit(commit, { attempt: 2 });
    const [first, second] = [sentItems(0), sentItems(1)];
    const shard = (sk: string | undefined) => Number(sk?.slice('TOTAL#'.length));
    expect(shard(second[1].Update?.Key?.sk?.S)).toBe((shard(first[1].Update?.Key?.sk?.S) + 1) % 8);
    expect(second.slice(0, 1)).toEqual(first.slice(0, 1));
  });

  it('a charge booked in a later period: totals there as a correction, the charge item says where', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const commit: ChargeCommit = { ...newChargeCommit({ amount: '4.5' }), bookedIn: '2026-12' };

    await ledger().commit(commit);

    const [charge, total] = sentItems();
    expect(charge.Put?.Item).toMatchObject({
      pk: { S: commit.ref.pk },
      period: { S: '2026-11' },
      bookedIn: { S: '2026-12' },
    });
    expect(total.Update?.Key?.pk?.S).toBe('TENANT#acme#ACCOUNT#200000000011#PERIOD#2026-12');
    expect(shardAdds(total)).toEqual({
      seq: '1',
      'total:USD': '4.5',
      'charges:USD': '1',
      'corrected:2026-11:USD': '4.5',
      'correctedCharges:2026-11:USD': '1',
    });
  });

  it('a restatement replaces the charge only if it still holds the version and content it was decided on', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const commit: ChargeCommit = {
      ...newChargeCommit({ amount: '7', lineItemId: 'li-1', version: 2 }),
      totals: [{ currency: 'USD', delta: '-3', charges: 0 }],
      previous: { version: 1, contentHash: 'previous-hash', amount: '10', currency: 'USD' },
    };

    expect(await ledger().commit(commit)).toBe('committed');

    const [charge, total] = sentItems();
    expect(charge.Put).toMatchObject({
      Item: { version: { N: '2' }, amount: { N: '7' } },
      ConditionExpression:
        'version = :version AND contentHash = :hash AND attribute_not_exists(voidedAt)',
      ExpressionAttributeValues: { ':version': { N: '1' }, ':hash': { S: 'previous-hash' } },
    });
    expect(shardAdds(total)).toEqual({ seq: '1', 'total:USD': '-3', 'charges:USD': '0' });
  });

  it('a currency change moves the charge between two currencies of one shard item', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const commit: ChargeCommit = {
      ...newChargeCommit({ amount: '9', currency: 'EUR', lineItemId: 'li-2', version: 2 }),
      totals: [
        { currency: 'USD', delta: '-10', charges: -1 },
        { currency: 'EUR', delta: '9', charges: 1 },
      ],
      previous: { version: 1, contentHash: 'h', amount: '10', currency: 'USD' },
    };

    await ledger().commit(commit);

    const totals = sentItems().slice(1);
    expect(totals).toHaveLength(1);
    expect(shardAdds(totals[0])).toEqual({
      seq: '1',
      'total:USD': '-10',
      'charges:USD': '-1',
      'total:EUR': '9',
      'charges:EUR': '1',
    });
  });
});

describe('DynamoLedger.commit reads the cancellation reasons', () => {
  it('only a transaction conflict (no condition failed): contended, the same commit can be retried', async () => {
    dynamo.on(TransactWriteItemsCommand).rejects(cancelled('None', 'TransactionConflict'));
    expect(await ledger().commit(newChargeCommit({ amount: '1' }))).toBe('contended');
  });

  it('the charge condition failed: lost race, decide again on a fresh read', async () => {
    dynamo.on(TransactWriteItemsCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    expect(await ledger().commit(newChargeCommit({ amount: '1' }))).toBe('lost-race');
  });

  it('only the shard refused (its period is closed): period-closed, to be booked by the policy', async () => {
    dynamo.on(TransactWriteItemsCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    expect(await ledger().commit(newChargeCommit({ amount: '1' }))).toBe('period-closed');
  });

  it('the charge lost and the period is closed: a lost race first (decide again, then book)', async () => {
    dynamo
      .on(TransactWriteItemsCommand)
      .rejects(cancelled('ConditionalCheckFailed', 'ConditionalCheckFailed'));
    expect(await ledger().commit(newChargeCommit({ amount: '1' }))).toBe('lost-race');
  });

  it('a cancellation for any other reason (throttling) is a transient error for the caller', async () => {
    const throttled = cancelled('ThrottlingError', 'None');
    dynamo.on(TransactWriteItemsCommand).rejects(throttled);
    await expect(ledger().commit(newChargeCommit({ amount: '1' }))).rejects.toBe(throttled);
  });

  it('a ValidationException (DynamoDB Local refusing an invalid item) is a PermanentError with its reason', async () => {
    dynamo.on(TransactWriteItemsCommand).rejects(
      Object.assign(
        new Error(
          'Number overflow. Attempting to store a number with magnitude larger than supported range',
        ),
        {
          name: 'ValidationException',
        },
      ),
    );
    const refused = ledger().commit(newChargeCommit({ amount: '1' }));
    await expect(refused).rejects.toBeInstanceOf(PermanentError);
    await expect(refused).rejects.toMatchObject({
      code: 'invalid-field',
      field: '$',
      reason:
        'the ledger rejected the charge: Number overflow. Attempting to store a number with magnitude larger than supported range',
    });
  });

  it("a transaction cancelled because an item is invalid is a PermanentError naming DynamoDB's reason", async () => {
    dynamo.on(TransactWriteItemsCommand).rejects(
      new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: [
          { Code: 'None' },
          { Code: 'ValidationError', Message: 'too many digits' },
        ],
      }),
    );
    const refused = ledger().commitGroup([newChargeCommit({ amount: '1' })]);
    await expect(refused).rejects.toBeInstanceOf(PermanentError);
    await expect(refused).rejects.toMatchObject({
      reason:
        'the ledger rejected the charge: DynamoDB refused the write as invalid: too many digits',
    });
  });

  it('an error that is not a cancellation is passed on unchanged', async () => {
    const error = Object.assign(new Error('Rate exceeded'), {
      name: 'ProvisionedThroughputExceededException',
    });
    dynamo.on(TransactWriteItemsCommand).rejects(error);
    await expect(ledger().commit(newChargeCommit({ amount: '1' }))).rejects.toBe(error);
  });
});

describe('DynamoLedger.commitGroup', () => {
  const group = () => [
    newChargeCommit({ amount: '0.1', skuId: 'a' }),
    newChargeCommit({ amount: '0.2', skuId: 'b' }),
    newChargeCommit({ amount: '5', skuId: 'c', currency: 'EUR' }),
  ];

  it('writes the charge of every commit and sums its partition on one shard, exactly', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const commits = group();

    expect(await ledger().commitGroup(commits)).toEqual({ result: 'committed' });

    const items = sentItems();
    expect(items).toHaveLength(3 + 1);
    expect(items.slice(0, 3).map((item) => item.Put?.TableName)).toEqual([
      'ledger',
      'ledger',
      'ledger',
    ]);
    expect(items.slice(0, 3).map((item) => item.Put?.Item?.sk?.S)).toEqual(
      commits.map((commit) => commit.ref.sk),
    );
    expect(items[3].Update?.Key?.sk?.S).toBe(homeShard(commits[0]));
    // 0.1 + 0.2 as JS numbers is 0.30000000000000004; the ledger must get exactly 0.3.
    expect(shardAdds(items[3])).toEqual({
      seq: '1',
      'total:USD': '0.3',
      'charges:USD': '2',
      'total:EUR': '5',
      'charges:EUR': '1',
    });
  });

  it('keeps the totals of two partitions apart', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const commits = [
      newChargeCommit({ amount: '1', accountId: '111111111111' }),
      newChargeCommit({ amount: '2', accountId: '222222222222' }),
    ];

    await ledger().commitGroup(commits);

    expect(
      sentItems()
        .slice(2)
        .map((item) => [item.Update?.Key?.pk?.S, shardAdds(item)['total:USD']]),
    ).toEqual([
      [commits[0].ref.pk, '1'],
      [commits[1].ref.pk, '2'],
    ]);
  });

  it('names the commits whose charge condition failed', async () => {
    dynamo
      .on(TransactWriteItemsCommand)
      .rejects(cancelled('None', 'ConditionalCheckFailed', 'ConditionalCheckFailed', 'None'));
    // No item came back with the failed conditions: as far as the answer says, the charges are absent.
    expect(await ledger().commitGroup(group())).toEqual({
      result: 'lost-race',
      losers: [1, 2],
      current: new Map([
        [1, null],
        [2, null],
      ]),
    });
  });

  it('asks for the charge as it is when its condition fails, and answers with it', async () => {
    const stored = { version: 3, contentHash: 'h3', amount: '4.5', currency: 'EUR' };
    dynamo.on(TransactWriteItemsCommand).rejects(
      new TransactionCanceledException({
        message: 'cancelled',
        $metadata: {},
        CancellationReasons: [
          {
            Code: 'ConditionalCheckFailed',
            Item: {
              version: { N: '3' },
              contentHash: { S: 'h3' },
              amount: { N: '4.50' },
              currency: { S: 'EUR' },
            },
          },
          { Code: 'None' },
          { Code: 'None' },
        ],
      }),
    );
    expect(await ledger().commitGroup(group().slice(0, 2))).toEqual({
      result: 'lost-race',
      losers: [0],
      current: new Map([[0, stored]]),
    });
    const charges = sentItems().filter((item) => item.Put?.TableName === 'ledger');
    expect(charges.map((item) => item.Put?.ReturnValuesOnConditionCheckFailure)).toEqual([
      'ALL_OLD',
      'ALL_OLD',
    ]);
  });

  it('only contention on the shared totals: contended, no losers', async () => {
    dynamo
      .on(TransactWriteItemsCommand)
      .rejects(cancelled('None', 'None', 'None', 'TransactionConflict'));
    expect(await ledger().commitGroup(group())).toEqual({ result: 'contended' });
  });

  it('names the commits whose period is closed, so the others can commit', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const commits = [
      newChargeCommit({ amount: '1', accountId: '111111111111' }),
      newChargeCommit({ amount: '2', accountId: '222222222222' }),
      newChargeCommit({ amount: '3', accountId: '111111111111', skuId: 'other' }),
    ];
    dynamo
      .on(TransactWriteItemsCommand)
      .rejects(cancelled('None', 'None', 'None', 'ConditionalCheckFailed', 'None'));
    expect(await ledger().commitGroup(commits)).toEqual({
      result: 'period-closed',
      closed: [0, 2],
    });
  });

  it('a throttled group is a transient error for the caller', async () => {
    const error = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    dynamo.on(TransactWriteItemsCommand).rejects(error);
    await expect(ledger().commitGroup(group())).rejects.toBe(error);
  });
});

describe('DynamoLedger reads', () => {
  const stored = (commit: ChargeCommit, amount: string) => ({
    pk: { S: commit.ref.pk },
    sk: { S: commit.ref.sk },
    amount: { N: amount },
    currency: { S: 'USD' },
    version: { N: '3' },
    contentHash: { S: commit.contentHash },
  });

  it('readCharges: found, absent (null) and unprocessed (left out, to be read again) keys', async () => {
    const [found, absent, unprocessed] = [
      newChargeCommit({ amount: '1', skuId: 'found' }),
      newChargeCommit({ amount: '1', skuId: 'absent' }),
      newChargeCommit({ amount: '1', skuId: 'unprocessed' }),
    ];
    dynamo.on(BatchGetItemCommand).resolves({
      Responses: { ledger: [stored(found, '0.10000000000000000001')] },
      UnprocessedKeys: {
        ledger: { Keys: [{ pk: { S: unprocessed.ref.pk }, sk: { S: unprocessed.ref.sk } }] },
      },
    });

    const charges = await ledger().readCharges([found.ref, absent.ref, unprocessed.ref], {
      consistent: false,
    });

    expect(charges.get(refKey(found.ref))).toEqual({
      version: 3,
      contentHash: found.contentHash,
      amount: '0.10000000000000000001',
      currency: 'USD',
    });
    expect(charges.get(refKey(absent.ref))).toBeNull();
    expect(charges.has(refKey(unprocessed.ref))).toBe(false);
    const request = dynamo.commandCalls(BatchGetItemCommand)[0].args[0].input;
    expect(request.RequestItems?.ledger?.ConsistentRead).toBe(false);
  });

  it('readCharges asks at most 100 keys per BatchGetItem, consistent unless told otherwise', async () => {
    dynamo.on(BatchGetItemCommand).resolves({ Responses: { ledger: [] } });
    const refs = Array.from({ length: 250 }, (_, index) => ({ pk: 'p', sk: `CHARGE#${index}` }));

    const charges = await ledger().readCharges(refs);

    const requests = dynamo.commandCalls(BatchGetItemCommand).map((call) => call.args[0].input);
    expect(requests.map((input) => input.RequestItems?.ledger?.Keys?.length)).toEqual([
      100, 100, 50,
    ]);
    expect(requests.every((input) => input.RequestItems?.ledger?.ConsistentRead === true)).toBe(
      true,
    );
    expect(charges.size).toBe(250);
  });

  it('readCharge: one consistent GetItem; null when the charge is not there', async () => {
    const commit = newChargeCommit({ amount: '1' });
    dynamo
      .on(GetItemCommand)
      .resolvesOnce({ Item: stored(commit, '42.5') })
      .resolvesOnce({});

    expect(await ledger().readCharge(commit.ref)).toMatchObject({ amount: '42.5', version: 3 });
    expect(await ledger().readCharge(commit.ref)).toBeNull();
    expect(dynamo.commandCalls(GetItemCommand)[0].args[0].input).toMatchObject({
      TableName: 'ledger',
      Key: { pk: { S: commit.ref.pk }, sk: { S: commit.ref.sk } },
      ConsistentRead: true,
    });
  });
});
