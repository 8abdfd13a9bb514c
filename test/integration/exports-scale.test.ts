/**
 * An export too large for single items: 3,300 accounts × 2 services with 600-character service names
 * in ONE CSV sub-chunk (its totals take 14 pages of 300 KB: more than the 12 a transaction could
 * carry), and diffs of 3,300 account-currencies (their account list alone passes 400 KB). Both
 * exports become current, the ledger holds their exact sums, the second diff reads back whole from
 * its pages, and no item of the table passes DynamoDB's 400 KB.
 */
import { ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { exportPartitionKey, ExportStore } from '../../lambda/adapters/export-store';
import { MAX_ITEM_BYTES, itemBytes } from '../../lambda/adapters/item-size';
import { readAllTotals } from '../../lambda/adapters/ledger-reader';
import { queryBySortKeyPrefix } from '../../lambda/adapters/paged-query';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { csvOf, deliver, hourLine, type ExportDelivery } from '../support/export-pipeline';
import { ItemSizeProbe } from '../support/item-size-probe';

jest.setTimeout(120_000);

const ACCOUNTS = 3_300;
const SERVICES = ['A', 'B'].map((letter) => letter.repeat(600));
const account = (index: number) => String(300000000000 + index);
/** Cents of account `index`, service `s`, in export `round` (1 or 2): exact integers. */
const cents = (index: number, s: number, round: number): bigint =>
  BigInt(((index * 37 + s * 11) % 9973) + 1) +
  (round === 2 && s === 0 ? BigInt(index % 5) + 1n : 0n);
const decimal = (value: bigint): string => {
  const text = value.toString().padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
};
const exact = (value: bigint): string => decimal(value).replace(/\.?0+$/, '');

const lines = (round: number): string[] =>
  Array.from({ length: ACCOUNTS }, (_, index) =>
    SERVICES.map((service, s) =>
      hourLine(decimal(cents(index, s, round)), account(index), service, s),
    ),
  ).flat();
const sum = (round: number): bigint =>
  Array.from(
    { length: ACCOUNTS },
    (_, index) => cents(index, 0, round) + cents(index, 1, round),
  ).reduce((a, b) => a + b, 0n);

const probe = new ItemSizeProbe();
let dynamo: ReturnType<typeof localDynamo>;
let tables: LedgerTables;
let store: ExportStore;
/** The export source of the deliveries (set by the first test). */
let source = '';

beforeAll(async () => {
  dynamo = localDynamo({ middleware: probe.middleware });
  tables = await createLedgerTables(dynamo);
  store = new ExportStore({ client: dynamo, ledgerTable: tables.ledgerTable });
});
afterAll(() => dynamo.destroy());

const delivery = (executionId: string, eventTime: string, round: number): ExportDelivery => ({
  tenant: 'wide',
  prefix: 'wide',
  executionId,
  eventTime,
  sequencer: '01',
  files: { 'part-0.csv': csvOf(lines(round)) },
});

const ledgerSum = async (): Promise<{ total: string; charges: number; rows: number }> => {
  const rows = (await readAllTotals(dynamo, tables.ledgerTable)).filter((r) => r.tenant === 'wide');
  const scaled = rows.reduce((n, row) => {
    const [whole, fraction = ''] = row.total.split('.');
    return n + BigInt(`${whole}${fraction.padEnd(2, '0')}`);
  }, 0n);
  return {
    total: exact(scaled),
    charges: rows.reduce((n, r) => n + r.charges, 0),
    rows: rows.length,
  };
};

const sortKeys = async (source: string, prefix: string): Promise<string[]> =>
  (
    await queryBySortKeyPrefix(
      dynamo,
      tables.ledgerTable,
      exportPartitionKey('wide', source, '2026-11'),
      prefix,
      'sk',
    )
  ).map((item) => item.sk.S ?? '');

const largestStoredItem = async (): Promise<number> => {
  let largest = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({ TableName: tables.ledgerTable, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) largest = Math.max(largest, itemBytes(item));
    start = page.LastEvaluatedKey;
  } while (start);
  return largest;
};

describe('an export of 3,300 accounts × 2 services with long service names', () => {
  it('becomes current with its exact sum, and the next one too, with a diff read back from its pages', async () => {
    const first = await deliver(store, delivery('big-1', '2026-11-02T06:00:00.000Z', 1), {
      subChunkRows: 10_000,
    });
    expect(first.reports.at(-1)?.switched).toMatchObject({ outcome: 'current' });
    source = first.planned.ref.source;
    const chunkKeys = await sortKeys(source, 'EXEC#big-1#CHUNK#');
    expect(chunkKeys[0]).toBe('EXEC#big-1#CHUNK#00000.000000000000');
    expect(chunkKeys.length - 1).toBeGreaterThan(12);
    expect(await ledgerSum()).toEqual({
      total: exact(sum(1)),
      charges: 2 * ACCOUNTS,
      rows: ACCOUNTS,
    });

    const second = await deliver(store, delivery('big-2', '2026-11-03T06:00:00.000Z', 2), {
      subChunkRows: 10_000,
    });
    const switched = second.reports.at(-1)?.switched;
    if (switched?.outcome !== 'current')
      throw new Error(`not current: ${JSON.stringify(switched)}`);
    expect(await ledgerSum()).toEqual({
      total: exact(sum(2)),
      charges: 2 * ACCOUNTS,
      rows: ACCOUNTS,
    });
    expect(switched.diff.previousExecutionId).toBe('big-1');
    expect(switched.diff.accounts).toHaveLength(ACCOUNTS);
    const index = 1234;
    const before = cents(index, 0, 1) + cents(index, 1, 1);
    const after = cents(index, 0, 2) + cents(index, 1, 2);
    expect(switched.diff.accounts[index]).toEqual({
      accountId: account(index),
      currency: 'USD',
      old: exact(before),
      new: exact(after),
      delta: exact(after - before),
      oldCharges: 2,
      newCharges: 2,
      services: [
        {
          service: SERVICES[0],
          old: exact(cents(index, 0, 1)),
          new: exact(cents(index, 0, 2)),
          delta: exact(after - before),
        },
      ],
    });

    const diffPages = await sortKeys(source, 'DIFFPAGE#big-2#');
    expect(diffPages.length).toBeGreaterThan(1);
    const diffs = await store.readDiffs('wide', source, '2026-11');
    expect(diffs.map((diff) => diff.executionId)).toEqual(['big-1', 'big-2']);
    expect(diffs[1]).toEqual({ ...switched.diff, switchedAt: switched.switchedAt });
    // A redelivered task after the switch gets the same diff back from the pages.
    expect(await store.switchIfNewer(second.planned.ref)).toEqual({
      ...switched,
      diff: { ...switched.diff, switchedAt: switched.switchedAt },
    });

    expect(probe.largest.bytes).toBeLessThanOrEqual(310_000);
    expect(probe.largestTransaction.bytes).toBeLessThan(MAX_ITEM_BYTES);
    expect(await largestStoredItem()).toBeLessThanOrEqual(310_000);
  });

  it('keeps every refused correction of a pass, however many, beside a bounded EXEC item', async () => {
    const executions = await store.listExecutions('wide', source, '2026-11');
    const ref = executions.find((execution) => execution.executionId === 'big-2');
    if (!ref) throw new Error('big-2 was not planned by the test above');
    const rejected = Array.from({ length: 5_000 }, (_, index) => ({
      accountId: account(index),
      currency: 'USD',
      amount: '1.5',
      code: 'period-closed',
      reason: `the billing period 2026-11 of account ${account(index)} is closed; reopen it first`,
    }));
    const record = {
      sequence: 2,
      booked: 0,
      unchanged: 0,
      rejected,
      at: '2026-12-01T00:00:00.000Z',
    };

    await store.recordLateCorrections(ref, record, 2);

    expect((await store.readExecution(ref))?.lateCorrections).toEqual(record);
    expect(probe.largest.bytes).toBeLessThanOrEqual(310_000);
    expect(await largestStoredItem()).toBeLessThanOrEqual(310_000);
  });
});
