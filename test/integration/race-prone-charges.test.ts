/**
 * A restatement that arrives before the ledger holds any version of its line item commits on its own
 * (core/group-size.ts `likelyToLoseRace`), not in the batch's group. On DynamoDB Local, through the
 * real handler, from many concurrent invocations: every line item still ends at its latest version,
 * once, and the charges grouped beside it apply once.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { readPartitionCharges } from '../../lambda/adapters/ledger-reader';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { costEvent, type CostEventInput } from '../support/cost-events';
import { acmePartition, totalsByCurrency } from '../support/ledger-checks';
import { costLedgerHandlerOn, sum } from '../support/ledger-harness';
import { sqsEvent, sqsRecord } from '../support/sqs-events';

let dynamo: DynamoDBClient;
let tables: LedgerTables;

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
});

afterAll(() => dynamo.destroy());

/** Every batch in its own invocation, all at once; failed records come back, until none is left. */
const invokeConcurrently = async (batches: SQSRecord[][]): Promise<void> => {
  const handler = costLedgerHandlerOn(dynamo, tables);
  let pending = batches;
  for (let round = 0; round < 20 && pending.length > 0; round++) {
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
};

describe('a restatement racing its first version', () => {
  it('16 invocations with versions 1, 2 and 3 of three line items and charges of their own: each applies once', async () => {
    const account = '510000000001';
    const version = (item: number, v: number): CostEventInput => ({
      accountId: account,
      lineItemId: `li-${item}`,
      version: v,
      amount: `${item}${v}.25`,
    });
    const own = (invocation: number): CostEventInput[] =>
      ['1', '2', '3'].map((amount) => ({
        accountId: account,
        eventId: `own-${invocation}-${amount}`,
        amount,
      }));
    // Later versions come first in most batches: the ledger holds no version of them yet.
    const batches = Array.from({ length: 16 }, (_, invocation) =>
      [
        version(1, 3 - (invocation % 3)),
        version(2, 2 + (invocation % 2)),
        version(3, 1 + (invocation % 3)),
        ...own(invocation),
      ].map((input) => sqsRecord(costEvent(input))),
    );

    await invokeConcurrently(batches);

    const latest = [version(1, 3), version(2, 3), version(3, 3)].map((input) => input.amount!);
    const expected = sum([...latest, ...Array(16).fill('6')]);
    expect(await totalsByCurrency(dynamo, tables.ledgerTable, account)).toEqual({
      USD: { total: expected, charges: 3 + 16 * 3 },
    });
    const charges = await readPartitionCharges(dynamo, tables.ledgerTable, acmePartition(account));
    expect(charges).toHaveLength(3 + 16 * 3);
    expect(charges.filter((charge) => charge.version === 3)).toHaveLength(3);
  });
});
