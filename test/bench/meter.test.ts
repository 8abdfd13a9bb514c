import { Meter, meteringMiddleware, totalChanges } from '../../bench/lib/meter';

const LEDGER = 'ledger';
const N = (n: string) => ({ N: n });
const key = (sk: string) => ({ pk: { S: 'TENANT#t#ACCOUNT#a#PERIOD#2026-11' }, sk: { S: sk } });

describe('bench meter: total changes of an Update', () => {
  it('reads a shard item: one change per currency; seq and corrections carry no money of their own', () => {
    expect(
      totalChanges(LEDGER, {
        TableName: LEDGER,
        Key: key('TOTAL#07'),
        UpdateExpression:
          'SET tenant = :t ADD #t0 :a, #c0 :one, #t1 :b, #c1 :zero, #seq :one, #k :a, #kc :one',
        ExpressionAttributeNames: {
          '#t0': 'total:USD',
          '#c0': 'charges:USD',
          '#t1': 'total:EUR',
          '#c1': 'charges:EUR',
          '#seq': 'seq',
          '#k': 'corrected:2026-10:USD',
          '#kc': 'correctedCharges:2026-10:USD',
        },
        ExpressionAttributeValues: {
          ':a': N('12.5'),
          ':b': N('-3'),
          ':one': N('1'),
          ':zero': N('0'),
        },
      }),
    ).toEqual([
      { pk: 'TENANT#t#ACCOUNT#a#PERIOD#2026-11', currency: 'USD', delta: '12.5', charges: '1' },
      { pk: 'TENANT#t#ACCOUNT#a#PERIOD#2026-11', currency: 'EUR', delta: '-3', charges: '0' },
    ]);
  });

  it('reads a single-currency TOTAL#<CUR> item (the baseline and earlier versions)', () => {
    expect(
      totalChanges(LEDGER, {
        TableName: LEDGER,
        Key: key('TOTAL#EUR'),
        UpdateExpression: 'ADD #total :delta, #charges :charges SET currency = :currency',
        ExpressionAttributeNames: { '#total': 'total', '#charges': 'charges' },
        ExpressionAttributeValues: { ':delta': N('4.25'), ':charges': N('1') },
      }),
    ).toEqual([
      { pk: 'TENANT#t#ACCOUNT#a#PERIOD#2026-11', currency: 'EUR', delta: '4.25', charges: '1' },
    ]);
  });

  it('ignores updates of other tables, other items, and shard updates that add no money', () => {
    const update = {
      UpdateExpression: 'SET closedAt = :at',
      ExpressionAttributeValues: { ':at': { S: 'now' } },
    };
    expect(totalChanges(LEDGER, { ...update, TableName: LEDGER, Key: key('TOTAL#00') })).toEqual(
      [],
    );
    expect(totalChanges(LEDGER, { ...update, TableName: 'dedup', Key: key('TOTAL#00') })).toEqual(
      [],
    );
    expect(totalChanges(LEDGER, { ...update, TableName: LEDGER, Key: key('PERIOD') })).toEqual([]);
  });
});

describe('bench meter: middleware', () => {
  const middlewareOf = (meter: Meter, outcome: () => Promise<unknown>) =>
    meteringMiddleware(meter, () => LEDGER)(
      (() => outcome()) as never,
      { commandName: 'TransactWriteItemsCommand' } as never,
    );
  const transaction = {
    TransactItems: [
      { Put: { TableName: 'dedup', Item: { pk: { S: 'claim' } } } },
      { Put: { TableName: LEDGER, Item: key('CHARGE#abc') } },
      { Update: { TableName: LEDGER, Key: key('TOTAL#03'), UpdateExpression: 'ADD seq :one' } },
    ],
  };
  const cancelled = (codes: string[]) =>
    Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: codes.map((Code) => ({ Code })),
    });

  it('tells contention from lost races, and names the item kind that refused', async () => {
    const meter = new Meter();
    for (const codes of [
      ['None', 'None', 'TransactionConflict'],
      ['ConditionalCheckFailed', 'ConditionalCheckFailed', 'None'],
      ['None', 'ConditionalCheckFailed', 'TransactionConflict'],
    ])
      await expect(
        middlewareOf(meter, () => Promise.reject(cancelled(codes)))({ input: transaction }),
      ).rejects.toThrow('cancelled');
    expect(meter.cancelledTransactions).toBe(3);
    expect(meter.contendedTransactions).toBe(1);
    expect(Object.fromEntries(meter.cancellationReasons)).toEqual({
      'TransactionConflict@TOTAL': 1,
      'ConditionalCheckFailed@CHARGE+ConditionalCheckFailed@claim': 1,
      'ConditionalCheckFailed@CHARGE+TransactionConflict@TOTAL': 1,
    });
    // Billed as an upper bound: 2 WCU per item of at most 1 KB.
    expect(meter.cancelledTransactionWcu).toBe(18);
  });

  it('journals a committed transaction’s shard ADDs next to the charges it put', async () => {
    const meter = new Meter();
    const withMoney = {
      TransactItems: [
        ...transaction.TransactItems.slice(0, 2),
        {
          Update: {
            TableName: LEDGER,
            Key: key('TOTAL#03'),
            UpdateExpression: 'ADD #t :x, #c :one, seq :one',
            ExpressionAttributeNames: { '#t': 'total:USD', '#c': 'charges:USD' },
            ExpressionAttributeValues: { ':x': N('9.99'), ':one': N('1') },
          },
        },
      ],
    };
    // DynamoDB Local reports 2 units per table touched; DynamoDB bills 2 per item of at most 1 KB.
    await middlewareOf(meter, () =>
      Promise.resolve({
        output: {
          ConsumedCapacity: [
            { TableName: 'dedup', CapacityUnits: 2 },
            { TableName: LEDGER, CapacityUnits: 2 },
          ],
        },
      }),
    )({ input: withMoney });
    expect(meter.reportedWcu).toBe(4);
    expect(meter.billedWcu).toBe(6);
    expect(meter.journal).toHaveLength(1);
    expect(meter.journal[0].totals).toEqual([
      { pk: 'TENANT#t#ACCOUNT#a#PERIOD#2026-11', currency: 'USD', delta: '9.99', charges: '1' },
    ]);
    expect(meter.journal[0].puts).toHaveLength(1);
  });
});
