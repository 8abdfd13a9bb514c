/**
 * A rebuild from the archive runs the live export executions again: a live history of stream charges,
 * an export that supersedes their provider, a re-export restating it, a close that pins it, a late
 * stream charge kept provisional, and a third export after the close whose correction rolls into
 * December. Every export file is overwritten by a newer S3 version after its execution: the rebuild
 * reads the versions the plans pinned and states every total (stream, export-only accounts,
 * the rolled correction) exactly as the live ledger does.
 * DynamoDB Local and the local S3 (the archive); the export bucket is a versioned fake bucket.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import type { ExportStore } from '../../lambda/adapters/export-store';
import { readAllTotals } from '../../lambda/adapters/ledger-reader';
import { bookThroughCostPath } from '../../lambda/core/exports/late-correction-pass';
import { rebuildFromArchive } from '../../local/report/archive-rebuild';
import { startArchivingLedger, type ArchivingLedger } from '../support/archiving-ledger';
import { costEvent } from '../support/cost-events';
import { csvOf, hourLine } from '../support/export-pipeline';
import { fakeBucket } from '../support/fake-s3-bucket';
import { deliverPinnedExport, EXPORT_BUCKET, type PinnedDelivery } from '../support/pinned-export';
import { sqsEvent, sqsRecord } from '../support/sqs-events';
import { cli } from './helpers';

const ARCHIVE = 'rebuild-exports-archive';
const BOTH = '200000000011'; // stream charges and the export
const STREAM_ONLY = '200000000022';
const EXPORT_ONLY = '200000000033';
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

let live: ArchivingLedger;
let bucket: ReturnType<typeof fakeBucket>;
const overwritten: string[] = [];

const statementTotals = async (table: string) =>
  (await readAllTotals(live.dynamo, table)).map(
    ({ accountId, period, currency, total, charges, provisional }) => ({
      accountId,
      period,
      currency,
      total,
      charges,
      provisional: (provisional ?? []).map((p) => `${p.source} ${p.total}`),
    }),
  );

beforeAll(async () => {
  live = await startArchivingLedger(ARCHIVE, { lateChargePolicy: 'roll-forward' });
  bucket = fakeBucket(true, { bucket: EXPORT_BUCKET, others: live.s3.client });
  const { dynamo, tables } = live;
  const ledgerTable = tables.ledgerTable;
  const periods = new DynamoPeriods({ client: dynamo, ledgerTable });
  const target = {
    bucket,
    dynamo,
    ledgerTable,
    corrections: (store: ExportStore) => ({
      store,
      book: bookThroughCostPath({
        concurrency: 1,
        ledger: new DynamoLedger({ client: dynamo, ledgerTable }),
        periods,
        lateChargePolicy: 'roll-forward',
      }),
    }),
  };
  const stream = async (...events: Record<string, unknown>[]) => {
    expect(
      (await live.handler(sqsEvent(events.map((event) => sqsRecord(event))))).batchItemFailures,
    ).toEqual([]);
    await tick();
  };
  const exported = async (delivery: PinnedDelivery) => {
    const { keys } = await deliverPinnedExport(target, delivery);
    // A newer version of every file after the execution: only the pinned one is what was booked.
    for (const key of keys) bucket.put(key, csvOf([hourLine('999', BOTH, 'EC2', 0)]));
    overwritten.push(...keys);
    await tick();
  };
  const exportOf = (executionId: string, sequencer: string, lines: string[]): PinnedDelivery => ({
    tenant: 'acme',
    executionId,
    eventTime: `2026-12-0${sequencer}T06:00:00.000Z`,
    sequencer,
    files: { 'part-0.csv': csvOf(lines) },
  });

  await stream(
    costEvent({ accountId: BOTH, eventId: 's-1', amount: '4' }),
    costEvent({ accountId: BOTH, eventId: 'm-1', amount: '0.5', source: 'metering' }),
    costEvent({ accountId: STREAM_ONLY, eventId: 's-2', amount: '2.25' }),
  );
  await exported(
    exportOf('e-1', '1', [
      hourLine('4.10', BOTH, 'EC2', 0),
      hourLine('7', EXPORT_ONLY, 'S3', 1),
      hourLine('1.5', EXPORT_ONLY, 'S3', 2, { currency: 'EUR' }),
    ]),
  );
  // The re-export restates both accounts.
  await exported(
    exportOf('e-2', '2', [
      hourLine('4.20', BOTH, 'EC2', 0),
      hourLine('0.05', BOTH, 'EC2', 3),
      hourLine('7.5', EXPORT_ONLY, 'S3', 1),
    ]),
  );
  await stream(costEvent({ accountId: BOTH, eventId: 's-3', amount: '1' })); // provisional: the export counts
  for (const accountId of [BOTH, STREAM_ONLY, EXPORT_ONLY])
    await periods.close({ tenant: 'acme', accountId, period: '2026-11' }, 'test', 'invoiced');
  await tick();
  await stream(costEvent({ accountId: STREAM_ONLY, eventId: 's-late', amount: '3' })); // rolled to December
  // After the close: its difference from the pinned e-2 rolls into December as a correction (none
  // for BOTH, whose total it leaves at 4.25).
  await exported(
    exportOf('e-3', '3', [hourLine('4.25', BOTH, 'EC2', 0), hourLine('8', EXPORT_ONLY, 'S3', 1)]),
  );
});

afterAll(() => live.stop());

it('the live ledger: the pinned re-export, the provisional stream charges, the corrections in December', async () => {
  expect(await statementTotals(live.tables.ledgerTable)).toEqual([
    {
      accountId: BOTH,
      period: '2026-11',
      currency: 'USD',
      total: '4.75',
      charges: 3,
      provisional: ['aws 5'],
    },
    {
      accountId: STREAM_ONLY,
      period: '2026-11',
      currency: 'USD',
      total: '2.25',
      charges: 1,
      provisional: [],
    },
    {
      accountId: STREAM_ONLY,
      period: '2026-12',
      currency: 'USD',
      total: '3',
      charges: 1,
      provisional: [],
    },
    {
      accountId: EXPORT_ONLY,
      period: '2026-11',
      currency: 'USD',
      total: '7.5',
      charges: 1,
      provisional: [],
    },
    {
      accountId: EXPORT_ONLY,
      period: '2026-12',
      currency: 'USD',
      total: '0.5',
      charges: 1,
      provisional: [],
    },
  ]);
});

it('replay --rebuild-into: the November statements equal the live ones exactly, read from the pinned versions', async () => {
  bucket.mock.resetHistory();
  const result = await cli(
    [
      'replay',
      '--from-archive',
      '--tenant',
      'acme',
      '--period',
      '2026-11',
      '--table',
      live.tables.ledgerTable,
      '--archive-bucket',
      ARCHIVE,
      '--rebuild-into',
      `${live.tables.ledgerTable}-cli`,
      '--policy',
      'roll-forward',
      '--json',
    ],
    { clients: { dynamo: live.dynamo, s3: bucket.client } },
  );
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as {
    exports: number;
    closes: number;
    comparison: { equal: number; differences: unknown[] };
  };
  expect(report).toMatchObject({
    exports: 3,
    closes: 3,
    comparison: { equal: 3, differences: [] },
  });
  const gets = bucket.mock
    .commandCalls(GetObjectCommand)
    .map((call) => call.args[0].input)
    .filter((input) => input.Bucket === EXPORT_BUCKET);
  expect(gets.length).toBeGreaterThanOrEqual(overwritten.length);
  expect(gets.every((input) => input.VersionId === 'v1')).toBe(true);
  const november = async (table: string) =>
    (await statementTotals(table)).filter((row) => row.period === '2026-11');
  expect(await november(`${live.tables.ledgerTable}-cli`)).toEqual(
    await november(live.tables.ledgerTable),
  );
});

it('the local run’s rebuild (every period, one table): equal, December’s corrections included', async () => {
  const rebuild = await rebuildFromArchive({
    s3: bucket.client,
    dynamo: live.dynamo,
    bucket: ARCHIVE,
    liveTable: live.tables.ledgerTable,
    policy: 'roll-forward',
  });
  expect(rebuild).toEqual({ equal: 5, differences: [] });
  expect(await statementTotals(`${live.tables.ledgerTable}-rebuilt`)).toEqual(
    await statementTotals(live.tables.ledgerTable),
  );
});
