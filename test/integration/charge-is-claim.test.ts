/**
 * The charge is the claim (docs/ledger.md): the cost stream writes no dedup claim, its permanent charge
 * item, written on condition of its version and content, is what makes a second application
 * impossible. On DynamoDB Local, through the real handler, from many concurrent invocations.
 */
import {
  GetItemCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { canonicalize } from 'json-canonicalize';
import { chargeItem } from '../../lambda/adapters/dynamo-ledger';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { readPartitionCharges } from '../../lambda/adapters/ledger-reader';
import { DEDUP_PK, ledgerLayout } from '../../lambda/adapters/table-layout';
import { shardUpdate } from '../../lambda/adapters/total-shards';
import { parseCharge } from '../../lambda/core/cost-processor';
import { sha256Hex } from '../../lambda/core/keys';
import {
  createLedgerTables,
  localDynamo,
  RequestCounter,
  type LedgerTables,
} from '../support/aws-local';
import { newChargeCommit } from '../support/charge-commits';
import { costEvent, type CostEventInput } from '../support/cost-events';
import { acmePartition, totalsByCurrency } from '../support/ledger-checks';
import { costLedgerHandlerOn, sum } from '../support/ledger-harness';
import { sqsEvent, sqsRecord } from '../support/sqs-events';

let dynamo: DynamoDBClient;
let tables: LedgerTables;
const counter = new RequestCounter();

beforeAll(async () => {
  dynamo = localDynamo({ counter });
  tables = await createLedgerTables(dynamo);
});

afterAll(() => dynamo.destroy());

type Handler = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** Every batch in its own invocation, all at once; failed records come back, until none is left. */
const invokeConcurrently = async (handler: Handler, batches: SQSRecord[][]): Promise<void> => {
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

/** A fresh SQS record (its own message id) for each copy of a body. */
const copies = (inputs: CostEventInput[]): SQSRecord[] =>
  inputs.map((input) => sqsRecord(costEvent(input)));

/** Rotates a list, so each invocation sees the copies in another order. */
const rotated = <T>(items: T[], by: number): T[] => [
  ...items.slice(by % items.length),
  ...items.slice(0, by % items.length),
];

const totalsOf = (account: string) => totalsByCurrency(dynamo, tables.ledgerTable, account);
const chargesOf = (account: string) =>
  readPartitionCharges(dynamo, tables.ledgerTable, acmePartition(account));

/**
 * Claims in the dedup table. Charge leases (`<stream>#lease#…`) are not claims: they are taken only
 * where this environment measured lost races, hold no money and run out within 30 s.
 */
const dedupItems = async (): Promise<number> => {
  const { Items = [] } = await dynamo.send(new ScanCommand({ TableName: tables.dedupTable }));
  const leases = Items.filter((item) => item[DEDUP_PK]?.S?.includes('#lease#'));
  for (const lease of leases) {
    expect(Number(lease.leaseUntil?.N) - Date.now()).toBeLessThanOrEqual(30_000);
  }
  return Items.length - leases.length;
};

describe('the charge is the claim', () => {
  it('copies of one charge committed concurrently from 16 invocations apply once; no claim is written', async () => {
    const handler = costLedgerHandlerOn(dynamo, tables);
    const account = '500000000001';
    const shared: CostEventInput[] = ['0.1', '0.2', '3.333333', '-7', '1000000.000001'].map(
      (amount, index) => ({ accountId: account, eventId: `shared-${index}`, amount }),
    );
    const own = (invocation: number): CostEventInput[] =>
      ['1', '2', '3', '4', '5'].map((amount) => ({
        accountId: account,
        eventId: `own-${invocation}-${amount}`,
        amount,
      }));
    const batches = Array.from({ length: 16 }, (_, invocation) =>
      copies(rotated([...shared, ...own(invocation)], invocation)),
    );

    await invokeConcurrently(handler, batches);

    const expected = sum([...shared.map((charge) => charge.amount!), ...Array(16).fill('15')]);
    expect(await totalsOf(account)).toEqual({
      USD: { total: expected, charges: shared.length + 16 * 5 },
    });
    expect(await chargesOf(account)).toHaveLength(shared.length + 16 * 5);
    expect(await dedupItems()).toBe(0);
  });

  it('a restatement, a revert and a void each apply exactly once under concurrent copies', async () => {
    const handler = costLedgerHandlerOn(dynamo, tables);
    const periods = new DynamoPeriods({ client: dynamo, ledgerTable: tables.ledgerTable });
    const account = '500000000002';
    const version = (v: number, amount: string): CostEventInput => ({
      accountId: account,
      lineItemId: 'li-1',
      version: v,
      amount,
    });
    const v1 = version(1, '10');
    const v2 = version(2, '15.5');
    // The revert: version 3 brings the line item back to what version 1 said.
    const v3 = version(3, '10');
    const twelve = (inputs: CostEventInput[]) =>
      Array.from({ length: 12 }, (_, invocation) => copies(rotated(inputs, invocation)));

    await invokeConcurrently(handler, [copies([v1])]);
    await invokeConcurrently(handler, twelve([v2, v1, v2]));
    expect(await totalsOf(account)).toEqual({ USD: { total: '15.5', charges: 1 } });

    await invokeConcurrently(handler, twelve([v3, v2, v1, v3]));
    expect(await totalsOf(account)).toEqual({ USD: { total: '10', charges: 1 } });
    expect(await chargesOf(account)).toEqual([
      expect.objectContaining({ version: 3, amount: '10' }),
    ]);

    const [{ sk }] = await chargesOf(account);
    const request = {
      tenant: 'acme',
      accountId: account,
      period: '2026-11',
      chargeSk: sk,
      by: 'ops',
      reason: 'billed twice',
      policy: 'roll-forward' as const,
    };
    const voids = await Promise.all(Array.from({ length: 4 }, () => periods.voidCharge(request)));
    expect(voids.map((answer) => answer.outcome).sort()).toEqual([
      'already-voided',
      'already-voided',
      'already-voided',
      'voided',
    ]);
    expect(await totalsOf(account)).toEqual({ USD: { total: '0', charges: 0 } });

    await invokeConcurrently(handler, twelve([v1, v2, v3, version(4, '99')]));
    expect(await totalsOf(account)).toEqual({ USD: { total: '0', charges: 0 } });
    expect(await dedupItems()).toBe(0);
  });
});

describe('migration from the two-item protocol (claim + charge)', () => {
  const STREAM = 'cost-events';
  const claimKeyOf = (identity: { digest: string; version: number }) =>
    `${STREAM}#${sha256Hex(canonicalize({ identity: identity.digest, version: identity.version }))}`;

  /** What versions before the change committed: a claim with a TTL, the charge and its total shard. */
  const commitTheOldWay = async (input: CostEventInput, claimed = true, charged = true) => {
    const commit = newChargeCommit(input);
    const { identity } = parseCharge(ledgerLayout(), sqsRecord(costEvent(input)));
    const nowSeconds = Math.floor(Date.now() / 1000);
    const claim = {
      Put: {
        TableName: tables.dedupTable,
        Item: {
          pk: { S: claimKeyOf(identity) },
          expiresAt: { N: String(nowSeconds + 35 * 86_400) },
          stream: { S: STREAM },
          status: { S: 'COMPLETED' },
          ledgerPk: { S: commit.ref.pk },
          ledgerSk: { S: commit.ref.sk },
          contentHash: { S: commit.contentHash },
          version: { N: String(commit.identity.version) },
        },
      },
    };
    const charge = { Put: { TableName: tables.ledgerTable, Item: chargeItem(commit, Date.now()) } };
    const shard = shardUpdate(tables.ledgerTable, {
      pk: commit.ref.pk,
      shard: 0,
      scope: { tenant: 'acme', accountId: commit.event.accountId, period: '2026-11' },
      deltas: commit.totals,
    });
    await dynamo.send(
      new TransactWriteItemsCommand({
        TransactItems: [...(claimed ? [claim] : []), ...(charged ? [charge, shard] : [])],
      }),
    );
    return claim.Put.Item.pk.S;
  };

  it('a charge committed with a claim is a duplicate afterwards: no write; its restatement applies once', async () => {
    const handler = costLedgerHandlerOn(dynamo, tables);
    const account = '500000000003';
    const eventCharge = { accountId: account, eventId: 'old-1', amount: '4.25' };
    const lineItem = { accountId: account, lineItemId: 'old-li', version: 1, amount: '6' };
    const claimKeys = [await commitTheOldWay(eventCharge), await commitTheOldWay(lineItem)];
    expect(await totalsOf(account)).toEqual({ USD: { total: '10.25', charges: 2 } });

    counter.reset();
    await invokeConcurrently(
      handler,
      Array.from({ length: 4 }, () => copies([eventCharge, lineItem])),
    );
    expect(counter.get('TransactWriteItemsCommand')).toBe(0);
    expect(await totalsOf(account)).toEqual({ USD: { total: '10.25', charges: 2 } });

    await invokeConcurrently(
      handler,
      Array.from({ length: 4 }, () => copies([{ ...lineItem, version: 2, amount: '7' }])),
    );
    expect(await totalsOf(account)).toEqual({ USD: { total: '11.25', charges: 2 } });

    // The old claims are neither read nor removed: they expire by their TTL.
    for (const pk of claimKeys) {
      const claim = await dynamo.send(
        new GetItemCommand({ TableName: tables.dedupTable, Key: { pk: { S: pk } } }),
      );
      expect(claim.Item?.status?.S).toBe('COMPLETED');
    }
  });

  it('an old claim with no charge behind it is ignored: the charge applies once', async () => {
    const handler = costLedgerHandlerOn(dynamo, tables);
    const account = '500000000004';
    const input = { accountId: account, eventId: 'claim-only', amount: '3' };
    await commitTheOldWay(input, true, false);

    await invokeConcurrently(
      handler,
      Array.from({ length: 4 }, () => copies([input])),
    );
    expect(await totalsOf(account)).toEqual({ USD: { total: '3', charges: 1 } });
  });
});
