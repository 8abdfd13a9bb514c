/**
 * Charge leases (docs/ledger.md, "Lost races and charge leases"): under frequent lost races the cost
 * processor leases each charge before its grouped commit, so a copy another invocation is committing
 * costs one refused single-item write instead of a cancelled transaction. On DynamoDB Local, many
 * invocations at once over the same charges.
 */
import { TransactionCanceledException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { DynamoChargeLeases } from '../../lambda/adapters/charge-leases';
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { processCostBatch } from '../../lambda/core/cost-processor';
import { LossRate } from '../../lambda/core/group-size';
import { COST_STREAM } from '../../contract/streams';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { costEvent, type CostEventInput } from '../support/cost-events';
import { totalsByCurrency } from '../support/ledger-checks';
import { MemoryDeadLetters, sum } from '../support/ledger-harness';
import { sqsRecord } from '../support/sqs-events';

/** Transactions cancelled because a charge's condition failed: a lost race. */
const lostRaces = { count: 0 };
let dynamo: DynamoDBClient;
let tables: LedgerTables;

beforeAll(async () => {
  dynamo = localDynamo({
    middleware: (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (
          error instanceof TransactionCanceledException &&
          (error.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed')
        )
          lostRaces.count++;
        throw error;
      }
    },
  });
  tables = await createLedgerTables(dynamo);
});

afterAll(() => dynamo.destroy());

const INVOCATIONS = 12;

/** Every batch in its own invocation, all at once, each environment racing; failed records come back. */
const invokeConcurrently = async (batches: SQSRecord[][], leased: boolean): Promise<void> => {
  const ledger = new DynamoLedger({ client: dynamo, ledgerTable: tables.ledgerTable });
  const leases = new DynamoChargeLeases({
    client: dynamo,
    dedupTable: tables.dedupTable,
    stream: COST_STREAM,
  });
  // Environments that have seen a third of their grouped charges lose their race.
  const rates = batches.map(() => {
    const rate = new LossRate();
    rate.observe(30, 10);
    return rate;
  });
  let pending = batches.map((records, index) => ({ records, index }));
  for (let round = 0; round < 20 && pending.length > 0; round++) {
    const outcomes = await Promise.all(
      pending.map(({ records, index }) =>
        processCostBatch(records, {
          fifo: false,
          concurrency: 8,
          ledger,
          deadLetters: new MemoryDeadLetters(),
          lossRate: rates[index],
          pause: () => new Promise((resolve) => setTimeout(resolve, 20)),
          ...(leased ? { leases } : {}),
        }),
      ),
    );
    pending = outcomes
      .map((outcome, at) => ({
        index: pending[at].index,
        records: pending[at].records.filter((record) =>
          outcome.batchItemFailures.some((f) => f.itemIdentifier === record.messageId),
        ),
      }))
      .filter(({ records }) => records.length > 0);
  }
  expect(pending).toEqual([]);
};

const scenario = (account: string) => {
  const shared: CostEventInput[] = ['0.1', '0.2', '3.333333', '-7', '12.5', '99'].map(
    (amount, index) => ({ accountId: account, eventId: `shared-${index}`, amount }),
  );
  const own = (invocation: number): CostEventInput[] =>
    ['1', '2'].map((amount) => ({
      accountId: account,
      eventId: `own-${invocation}-${amount}`,
      amount,
    }));
  // Each invocation its own SQS messages (copies), the shared charges in another order.
  const batches = Array.from({ length: INVOCATIONS }, (_, invocation) =>
    [...shared.slice(invocation % 6), ...shared.slice(0, invocation % 6), ...own(invocation)].map(
      (input) => sqsRecord(costEvent(input)),
    ),
  );
  const expected = {
    USD: {
      total: sum([...shared.map((c) => c.amount!), ...Array(INVOCATIONS).fill('3')]),
      charges: shared.length + 2 * INVOCATIONS,
    },
  };
  return { batches, expected };
};

describe('charge leases', () => {
  it('copies of one charge from 12 invocations apply once and no transaction loses a race', async () => {
    const account = '600000000001';
    const { batches, expected } = scenario(account);
    lostRaces.count = 0;
    await invokeConcurrently(batches, true);
    expect(await totalsByCurrency(dynamo, tables.ledgerTable, account)).toEqual(expected);
    expect(lostRaces.count).toBe(0);
  });

  it('without leases the same invocations apply once too, through cancelled transactions', async () => {
    const account = '600000000002';
    const { batches, expected } = scenario(account);
    lostRaces.count = 0;
    await invokeConcurrently(batches, false);
    expect(await totalsByCurrency(dynamo, tables.ledgerTable, account)).toEqual(expected);
    expect(lostRaces.count).toBeGreaterThan(0);
  });
});
