/**
 * AWS Cost and Usage Reports through the real export pipeline on DynamoDB Local: the real anonymized
 * legacy CUR excerpt (test/fixtures/cur/SOURCES.md) as snapshots of its billing period, and beside a
 * FOCUS export of the same account and month. Expected totals are big.js sums of the raw cells.
 */
import Big from 'big.js';
import { ExportPlans } from '../../lambda/adapters/export-plans';
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
import { planDelivery as planManifestDelivery } from '../../lambda/core/exports/plan-delivery';
import type { ExecutionPlan } from '../../lambda/core/exports/plan';
import type { ExportTaskMessage } from '../../lambda/core/exports/task-message';
import {
  CSV_HEADER,
  csvOf,
  deliver,
  hourLine,
  runTask,
  type ExportDelivery,
  type PlannedDelivery,
} from '../support/export-pipeline';
import { legacyCurDelivery } from '../support/legacy-cur-delivery';
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
  /**
   * The same month as AWS's FOCUS rows: one row per service, BilledCost = the service's CUR total,
   * ServiceName its product name and x_ServiceCode its product code.
   */
  const productNames = new Map(
    legacy.records.map((record) => [
      record[legacy.header.indexOf(PRODUCT)],
      record[legacy.header.indexOf('product/ProductName')],
    ]),
  );
  const focusColumns = [...CSV_HEADER.split(','), 'x_ServiceCode'];
  const focusLines = [...productNames].map(
    ([code, name], hour) =>
      `${hourLine(serviceTotal(legacy, code), FIXTURE_ACCOUNT, name, hour, { period: FIXTURE_PERIOD })},${code}`,
  );
  const focusDelivery = (prefix: string, eventTime: string): ExportDelivery => ({
    tenant: prefix,
    prefix,
    exportName: 'focus',
    executionId: 'f-1',
    period: FIXTURE_PERIOD,
    eventTime,
    sequencer: '0055AED6DCD90281E5',
    columns: focusColumns,
    files: { 'part-0.csv': csvOf(focusLines, focusColumns.join(',')) },
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
    // Both snapshots name each service by its product code, with the same total.
    const [curTotals, focusTotals] = await Promise.all(
      (curFirst ? [first, second] : [second, first]).map((delivered) =>
        ledger.store.readSnapshotTotals(delivered.planned.ref),
      ),
    );
    const services = (totals: typeof curTotals) => totals[FIXTURE_ACCOUNT].USD.services;
    expect(Object.keys(services(focusTotals))).toEqual(
      expect.arrayContaining(['AWSGlue', 'awskms']),
    );
    expect(Object.keys(services(focusTotals))).not.toContain('AWS Glue');
    expect(services(focusTotals)).toEqual(services(curTotals));
  });
});

describe('legacy CUR in its own delivery layout, through the planner', () => {
  /** The bucket as AWS leaves it after an assembly: both manifest copies and the data files. */
  const bucket = new Map<string, string>();
  const upload = (prefix: string, assemblyId: string, table: CurTable) => {
    const built = legacyCurDelivery({
      bucket: 'exports',
      prefix,
      report: 'hourly',
      period: FIXTURE_PERIOD,
      assemblyId,
      columns: table.header,
      fileNames: ['hourly-1.csv'],
    });
    bucket.set(built.dataFileKeys[0], toCsv([table.header, ...table.records]));
    bucket.set(built.periodManifestKey, built.json);
    bucket.set(built.assemblyManifestKey, built.json);
    return built;
  };

  /** The planner reads the delivered manifest, records the plan in DynamoDB; the tasks then run. */
  const plannedAndRun = async (prefix: string, key: string, eventTime: string) => {
    const recorded: ExecutionPlan[] = [];
    const sent: ExportTaskMessage[] = [];
    const plans = new ExportPlans({
      client: ledger.dynamo,
      ledgerTable: ledger.tables.ledgerTable,
      store: ledger.store,
    });
    const result = await planManifestDelivery(
      { bucket: 'exports', key, eventTime, sequencer: '0055AED6DCD90281E5' },
      {
        sources: [{ tenant: prefix, bucket: 'exports', prefix }],
        targetRowsPerTask: 100_000,
        objects: {
          readText: (_bucket, objectKey) => Promise.resolve(bucket.get(objectKey) ?? ''),
          factsOf: (file) => {
            const text = bucket.get(file.key);
            return Promise.resolve(
              text === undefined ? undefined : { key: file.key, size: Buffer.byteLength(text) },
            );
          },
        },
        plans: {
          recordPlan: (plan) => {
            recorded.push(plan);
            return plans.recordPlan(plan);
          },
          readPlan: (ref) => plans.readPlan(ref),
          markEnqueued: (ref) => plans.markEnqueued(ref),
        },
        queue: { send: (messages) => Promise.resolve(void sent.push(...messages)) },
      },
    );
    const reports = [];
    if (recorded.length > 0) {
      const planned: PlannedDelivery = {
        plan: recorded[0],
        ref: result.ref,
        texts: bucket,
        recorded: 'planned',
      };
      for (const message of sent) reports.push(await runTask(ledger.store, planned, message.task));
    }
    return { result, reports };
  };

  it('each assembly is a snapshot: the later one replaces the earlier, its twin manifest is a duplicate', async () => {
    const prefix = freshPrefix();
    const original = legacyCurTable();
    const later = restated(original);
    const first = upload(prefix, 'assembly-1', original);
    const planned = await plannedAndRun(
      prefix,
      first.periodManifestKey,
      '2023-11-20T06:00:00.000Z',
    );
    expect(planned.result).toMatchObject({ outcome: 'planned', tasks: 1 });
    expect(planned.result.ref).toMatchObject({ period: FIXTURE_PERIOD, executionId: 'assembly-1' });
    expect(planned.reports.at(-1)?.switched).toMatchObject({ outcome: 'current' });
    const twin = await plannedAndRun(prefix, first.assemblyManifestKey, '2023-11-20T06:00:01.000Z');
    expect(twin.result.outcome).toBe('duplicate');
    expect(await statement(prefix)).toEqual([
      expect.objectContaining({ total: exactSum(cellsOf(original, COST)), charges: 200 }),
    ]);

    const second = upload(prefix, 'assembly-2', later);
    const restatement = await plannedAndRun(
      prefix,
      second.periodManifestKey,
      '2023-11-21T06:00:00.000Z',
    );
    const switched = restatement.reports.at(-1)?.switched;
    if (switched?.outcome !== 'current')
      throw new Error(`not current: ${JSON.stringify(switched)}`);
    expect(switched.diff).toMatchObject({
      executionId: 'assembly-2',
      previousExecutionId: 'assembly-1',
      accounts: [
        expect.objectContaining({
          delta: new Big(exactSum(cellsOf(later, COST)))
            .minus(exactSum(cellsOf(original, COST)))
            .toFixed(),
          services: [
            expect.objectContaining({ service: 'AWSGlue', delta: '1.5' }),
            expect.objectContaining({ service: 'awskms', delta: '-0.01' }),
          ],
        }),
      ],
    });
    expect(await statement(prefix)).toEqual([
      expect.objectContaining({ total: exactSum(cellsOf(later, COST)), charges: 199 }),
    ]);
  });
});
