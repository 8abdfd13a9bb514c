import {
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import Big from 'big.js';
import { readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import type { ChargeCommit } from '../../lambda/core/ports';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { newChargeCommit } from '../support/charge-commits';
import { acmePartition } from '../support/ledger-checks';
import { inPeriod, ledgerHarness, statementOf } from '../support/ledger-harness';

let dynamo: DynamoDBClient;
let tables: LedgerTables;

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
});

afterAll(() => dynamo.destroy());

const NOV = '2026-11';

/** A deterministic pseudo-random sequence (the test must be repeatable). */
const seeded = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};

const shardKeys = async (account: string): Promise<string[]> =>
  (
    (
      await dynamo.send(
        new QueryCommand({
          TableName: tables.ledgerTable,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :total)',
          ExpressionAttributeValues: {
            ':pk': { S: acmePartition(account, NOV) },
            ':total': { S: 'TOTAL#' },
          },
          ConsistentRead: true,
        }),
      )
    ).Items ?? []
  ).map((item) => item.sk?.S ?? '');

describe('sharded totals on DynamoDB Local', () => {
  it('16 concurrent writers × 200 charges on one account, duplicates mixed in: the summed total is exact', async () => {
    const account = '400000000001';
    const { deliver } = ledgerHarness(dynamo, tables, { totalShards: 8 });
    const random = seeded(14);
    let truth = new Big(0);
    let distinct = 0;
    const workers = Array.from({ length: 16 }, (_, worker) => {
      const batches: Parameters<typeof deliver>[0][] = [];
      for (let batch = 0; batch < 20; batch++) {
        const events = Array.from({ length: 10 }, (_, index) => {
          const amount = `${Math.floor(random() * 1000)}.${String(Math.floor(random() * 1e9)).padStart(9, '0')}`;
          truth = truth.plus(amount);
          distinct++;
          return {
            accountId: account,
            eventId: `w${worker}-b${batch}-${index}`,
            amount,
            chargePeriodStart: inPeriod(NOV),
          };
        });
        // Every batch re-delivers two charges of the previous one (at-least-once delivery).
        batches.push(batch === 0 ? events : [...events, ...batches[batch - 1].slice(0, 2)]);
      }
      return batches;
    });

    const results = await Promise.all(
      workers.map(async (batches) => {
        const outcomes: string[] = [];
        for (const batch of batches) {
          outcomes.push(...(await deliver(batch)).results.map((result) => result.outcome));
        }
        return outcomes;
      }),
    );

    const all = results.flat();
    expect(all.filter((outcome) => outcome === 'applied')).toHaveLength(distinct);
    expect(all.filter((outcome) => outcome === 'duplicate')).toHaveLength(16 * 19 * 2);
    const statement = await statementOf(dynamo, tables, account, NOV);
    expect(new Big(statement.total).eq(truth)).toBe(true);
    expect(statement.charges).toBe(16 * 200);
    expect((await shardKeys(account)).length).toBe(8);
  }, 300_000);

  it('a grouped commit with one failing condition lands nothing: no charge, no total', async () => {
    const account = '400000000002';
    const { ledger, deliver } = ledgerHarness(dynamo, tables, { totalShards: 4 });
    await deliver([
      { accountId: account, eventId: 'taken', amount: '1', chargePeriodStart: inPeriod(NOV) },
    ]);
    const group: ChargeCommit[] = [
      newChargeCommit({ accountId: account, eventId: 'g-1', amount: '10' }),
      newChargeCommit({ accountId: account, eventId: 'g-2', amount: '20' }),
      // Decided as new, but the ledger already holds it: its charge condition fails.
      newChargeCommit({ accountId: account, eventId: 'taken', amount: '1' }),
      newChargeCommit({ accountId: '400000000003', eventId: 'g-3', amount: '30' }),
    ];

    expect(await ledger.commitGroup(group)).toEqual({
      result: 'lost-race',
      losers: [2],
      current: new Map([
        [
          2,
          {
            version: 0,
            contentHash: group[2].contentHash,
            amount: '1',
            currency: 'USD',
            attributed: true,
          },
        ],
      ]),
    });

    expect(await statementOf(dynamo, tables, account, NOV)).toMatchObject({
      total: '1',
      charges: 1,
    });
    expect(await statementOf(dynamo, tables, '400000000003', NOV)).toMatchObject({ total: '0' });
    for (const commit of [group[0], group[1], group[3]]) {
      const charge = await dynamo.send(
        new GetItemCommand({
          TableName: tables.ledgerTable,
          Key: { pk: { S: commit.ref.pk }, sk: { S: commit.ref.sk } },
        }),
      );
      expect(charge.Item).toBeUndefined();
    }

    expect(await ledger.commitGroup([group[0], group[1], group[3]])).toEqual({
      result: 'committed',
    });
    expect(await statementOf(dynamo, tables, account, NOV)).toMatchObject({
      total: '31',
      charges: 3,
    });
    expect(await statementOf(dynamo, tables, '400000000003', NOV)).toMatchObject({ total: '30' });
  });

  it('a grouped commit touching a closed period lands nothing and names the commits booked there', async () => {
    const { ledger, periods } = ledgerHarness(dynamo, tables);
    await periods.close({ tenant: 'acme', accountId: '400000000004', period: NOV }, 'ops', 'test', {
      force: true,
    });
    const group = [
      newChargeCommit({ accountId: '400000000005', eventId: 'open-1', amount: '1' }),
      newChargeCommit({ accountId: '400000000004', eventId: 'closed-1', amount: '2' }),
    ];

    expect(await ledger.commitGroup(group)).toEqual({ result: 'period-closed', closed: [1] });
    expect(await statementOf(dynamo, tables, '400000000005', NOV)).toMatchObject({ total: '0' });
  });

  it('re-sharding a live account: N=4, then 16, then 2 — totals stay exact', async () => {
    const account = '400000000006';
    let truth = new Big(0);
    let count = 0;
    const shardCounts: number[] = [];
    const random = seeded(42);
    for (const [step, shards] of [4, 16, 2].entries()) {
      const { deliver } = ledgerHarness(dynamo, tables, { totalShards: shards });
      await Promise.all(
        Array.from({ length: 4 }, async (_, worker) => {
          for (let batch = 0; batch < 5; batch++) {
            const events = Array.from({ length: 10 }, (_, index) => {
              const amount = `${Math.floor(random() * 100)}.${Math.floor(random() * 100)}`;
              truth = truth.plus(amount);
              count++;
              return {
                accountId: account,
                eventId: `s${step}-w${worker}-${batch}-${index}`,
                amount,
                chargePeriodStart: inPeriod(NOV),
              };
            });
            await deliver(events);
          }
        }),
      );
      const statement = await statementOf(dynamo, tables, account, NOV);
      expect(new Big(statement.total).eq(truth)).toBe(true);
      expect(statement.charges).toBe(count);
      shardCounts.push((await shardKeys(account)).length);
    }
    // Growing spreads writes over more shards; shrinking leaves those in place, and they keep counting.
    expect(shardCounts[0]).toBeLessThanOrEqual(4);
    expect(shardCounts[1]).toBeGreaterThan(4);
    expect(shardCounts[2]).toBe(shardCounts[1]);
  }, 120_000);

  it('legacy per-currency total items are still summed with the shards', async () => {
    const account = '400000000007';
    const { deliver } = ledgerHarness(dynamo, tables);
    await deliver([
      { accountId: account, eventId: 'new', amount: '0.2', chargePeriodStart: inPeriod(NOV) },
    ]);
    await dynamo.send(
      new PutItemCommand({
        TableName: tables.ledgerTable,
        Item: {
          pk: { S: acmePartition(account, NOV) },
          sk: { S: 'TOTAL#USD' },
          tenant: { S: 'acme' },
          accountId: { S: account },
          period: { S: NOV },
          currency: { S: 'USD' },
          total: { N: '0.1' },
          charges: { N: '1' },
        },
      }),
    );
    const rows = await readPartitionTotals(dynamo, tables.ledgerTable, acmePartition(account, NOV));
    expect(rows).toEqual([
      {
        tenant: 'acme',
        accountId: account,
        period: NOV,
        currency: 'USD',
        total: '0.3',
        charges: 2,
        status: 'open',
      },
    ]);
  });
});
