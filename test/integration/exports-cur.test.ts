/**
 * AWS Cost and Usage Reports through the real export pipeline on DynamoDB Local: the real anonymized
 * legacy CUR excerpt (test/fixtures/cur/README.md) as snapshots of its billing period, and beside a
 * FOCUS export of the same account and month. Expected totals are big.js sums of the raw cells.
 */
import Big from 'big.js';
import { readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import { ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import {
  cellsOf,
  exactSum,
  FIXTURE_ACCOUNT,
  FIXTURE_PERIOD,
  legacyCurTable,
  snakeCase,
  toCsv,
  type CurTable,
} from '../support/cur-fixture';
import { csvOf, deliver, hourLine, type ExportDelivery } from '../support/export-pipeline';
import { useExportLedger } from '../support/file-fixtures';

const ledger = useExportLedger();

let prefixes = 0;
const freshPrefix = () => `cur-tenant-${(prefixes += 1)}`;

const statement = (tenant: string) =>
  readPartitionTotals(
    ledger.dynamo,
    ledger.tables.ledgerTable,
    ledgerPartitionKeyOf(tenant, FIXTURE_ACCOUNT, FIXTURE_PERIOD),
  );

const COST = 'lineItem/UnblendedCost';
const PRODUCT = 'lineItem/ProductCode';

const curDelivery = (
  prefix: string,
  exportName: string,
  executionId: string,
  eventTime: string,
  table: CurTable,
): ExportDelivery => ({
  tenant: prefix,
  prefix,
  exportName,
  executionId,
  period: FIXTURE_PERIOD,
  eventTime,
  sequencer: '0055AED6DCD90281E5',
  columns: table.header,
  files: { 'part-0.csv': toCsv([table.header, ...table.records]) },
});

/** The fixture as a later delivery restates it: its first Glue row costs 1.5 more, its first KMS row (tax, 0.01) is gone. */
const restated = (table: CurTable): CurTable => {
  const cost = table.header.indexOf(COST);
  const product = table.header.indexOf(PRODUCT);
  const glue = table.records.findIndex((record) => record[product] === 'AWSGlue');
  const kms = table.records.findIndex((record) => record[product] === 'awskms');
  const records = table.records
    .map((record, index) =>
      index === glue
        ? record.map((cell, at) => (at === cost ? new Big(cell).plus('1.5').toFixed() : cell))
        : record,
    )
    .filter((_, index) => index !== kms);
  return { header: table.header, records };
};

const serviceTotal = (table: CurTable, service: string): string =>
  exactSum(
    table.records
      .filter((record) => record[table.header.indexOf(PRODUCT)] === service)
      .map((record) => record[table.header.indexOf(COST)]),
  );

describe('legacy CUR snapshots of one period', () => {
  it('a later delivery restating rows replaces the snapshot; the diff names the services that changed', async () => {
    const prefix = freshPrefix();
    const original = legacyCurTable();
    const later = restated(original);
    const first = await deliver(
      ledger.store,
      curDelivery(prefix, 'cur', 'a-1', '2023-11-20T06:00:00.000Z', original),
    );
    expect(first.reports.at(-1)?.switched).toMatchObject({ outcome: 'current' });
    const before = exactSum(cellsOf(original, COST));
    expect(await statement(prefix)).toEqual([
      expect.objectContaining({ total: before, charges: 200, currency: 'USD' }),
    ]);

    const second = await deliver(
      ledger.store,
      curDelivery(prefix, 'cur', 'a-2', '2023-11-21T06:00:00.000Z', later),
    );

    const after = exactSum(cellsOf(later, COST));
    expect(after).not.toEqual(before);
    expect(await statement(prefix)).toEqual([
      expect.objectContaining({ total: after, charges: 199, currency: 'USD' }),
    ]);
    const switched = second.reports.at(-1)?.switched;
    if (switched?.outcome !== 'current')
      throw new Error(`not current: ${JSON.stringify(switched)}`);
    const glue = { old: serviceTotal(original, 'AWSGlue'), new: serviceTotal(later, 'AWSGlue') };
    const kms = { old: serviceTotal(original, 'awskms'), new: serviceTotal(later, 'awskms') };
    const delta = (change: { old: string; new: string }) =>
      new Big(change.new).minus(change.old).toFixed();
    expect(switched.diff).toEqual({
      executionId: 'a-2',
      previousExecutionId: 'a-1',
      accounts: [
        {
          accountId: FIXTURE_ACCOUNT,
          currency: 'USD',
          old: before,
          new: after,
          delta: new Big(after).minus(before).toFixed(),
          oldCharges: 200,
          newCharges: 199,
          services: [
            { service: 'AWSGlue', ...glue, delta: delta(glue) },
            { service: 'awskms', ...kms, delta: delta(kms) },
          ],
        },
      ],
    });
    const { source, period } = second.planned.ref;
    expect((await ledger.store.readDiffs(prefix, source, period)).at(-1)).toMatchObject(
      switched.diff,
    );
    expect(
      (await ledger.store.listExecutions(prefix, source, period)).map((e) => [
        e.executionId,
        e.status,
      ]),
    ).toEqual([
      ['a-1', 'superseded'],
      ['a-2', 'current'],
    ]);
  });
});

describe('a CUR 2.0 export and a FOCUS export of the same account and month', () => {
  const legacy = legacyCurTable();
  const cur2: CurTable = { header: legacy.header.map(snakeCase), records: legacy.records };
  const total = exactSum(cellsOf(legacy, COST));
  /** The same month as FOCUS rows: one row per service, BilledCost = the service's CUR total. */
  const focusLines = [...new Set(cellsOf(legacy, PRODUCT))].map((service, hour) =>
    hourLine(serviceTotal(legacy, service), FIXTURE_ACCOUNT, service, hour, {
      period: FIXTURE_PERIOD,
    }),
  );
  const focusDelivery = (prefix: string, eventTime: string): ExportDelivery => ({
    tenant: prefix,
    prefix,
    exportName: 'focus',
    executionId: 'f-1',
    period: FIXTURE_PERIOD,
    eventTime,
    sequencer: '0055AED6DCD90281E5',
    files: { 'part-0.csv': csvOf(focusLines) },
  });

  it.each([
    ['CUR 2.0 first', true],
    ['FOCUS first', false],
  ])('%s: the total counts once, never summed', async (_, curFirst) => {
    const prefix = freshPrefix();
    const deliverCur = () =>
      deliver(
        ledger.store,
        curDelivery(prefix, 'cur2', 'c-1', `2023-11-20T0${curFirst ? 6 : 7}:00:00.000Z`, cur2),
      );
    const deliverFocus = () =>
      deliver(ledger.store, focusDelivery(prefix, `2023-11-20T0${curFirst ? 7 : 6}:00:00.000Z`));
    const [first, second] = curFirst
      ? [await deliverCur(), await deliverFocus()]
      : [await deliverFocus(), await deliverCur()];

    expect(exactSum(focusLines.map((line) => line.split(',')[0]))).toEqual(total);
    expect(await statement(prefix)).toEqual([
      expect.objectContaining({
        total,
        charges: curFirst ? 200 : focusLines.length,
        shadowed: [
          expect.objectContaining({
            source: second.planned.ref.source,
            total,
            authoritative: first.planned.ref.source,
          }),
        ],
      }),
    ]);
  });
});
