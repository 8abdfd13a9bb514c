import { ValidationError } from '../../../lambda/core/errors';
import { manifestFor, parseManifest } from '../../../lambda/core/exports/manifest';
import {
  executionOrder,
  planExecution,
  sourceIdOf,
  type FileFacts,
  type PlanInput,
} from '../../../lambda/core/exports/plan';

const COLUMNS = [
  'BilledCost',
  'BillingAccountId',
  'BillingCurrency',
  'BillingPeriodStart',
  'ChargeCategory',
  'ChargePeriodStart',
  'ChargePeriodEnd',
];

const manifestOf = (names: string[]) => {
  const built = manifestFor({
    bucket: 'exports',
    prefix: 'acme',
    exportName: 'focus',
    billingPeriod: '2026-11',
    executionId: 'e-1',
    columns: COLUMNS,
    dataFileNames: names,
  });
  return { manifest: parseManifest(built.json, built.manifestUri), keys: built.dataFileKeys };
};

const input = (names: string[], facts: (keys: string[]) => FileFacts[]): PlanInput => {
  const { manifest, keys } = manifestOf(names);
  return {
    manifest,
    binding: { tenant: 'acme', source: sourceIdOf(manifest.bucket, manifest.exportRoot) },
    event: { eventTime: '2026-11-02T06:00:00.123Z', sequencer: '0055AED6DCD90281E5' },
    files: facts(keys),
    targetRowsPerTask: 100,
  };
};

const errorOf = (run: () => unknown): ValidationError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
};

describe('planExecution', () => {
  it('plans one task per CSV file and row-group ranges of about the target rows per Parquet file', () => {
    const plan = planExecution(
      input(['a.csv', 'b.csv.gz', 'c.parquet'], ([a, b, c]) => [
        { key: a, size: 10 },
        { key: b, size: 20 },
        { key: c, size: 30, rowGroups: [60, 60, 250, 10, 30] },
      ]),
    );
    expect(plan).toMatchObject({
      tenant: 'acme',
      source: 'exports/acme/focus',
      period: '2026-11',
      executionId: 'e-1',
    });
    expect(plan.order).toBe('2026-11-02T06:00:00.123Z#000000000000000055AED6DCD90281E5');
    expect(plan.files.map((file) => [file.format, file.size])).toEqual([
      ['csv', 10],
      ['csv.gz', 20],
      ['parquet', 30],
    ]);
    expect(
      plan.tasks.map((task) =>
        task.kind === 'csv-file'
          ? [task.index, task.kind, task.format]
          : [task.index, task.firstRowGroup, task.endRowGroup, task.firstRow, task.rows],
      ),
    ).toEqual([
      [0, 'csv-file', 'csv'],
      [1, 'csv-file', 'csv.gz'],
      // 60 + 60 reaches 100; 250 alone is over; 10 + 30 is the rest of the file.
      [2, 0, 2, 0, 120],
      [3, 2, 3, 120, 250],
      [4, 3, 5, 370, 40],
    ]);
  });

  it('rejects a data file the bucket does not have, or a Parquet file without row groups', () => {
    expect(errorOf(() => planExecution(input(['a.csv'], () => [])))).toMatchObject({
      code: 'invalid-field',
      field: 'dataFiles[0]',
    });
    expect(
      errorOf(() => planExecution(input(['a.parquet'], ([key]) => [{ key, size: 1 }]))).reason,
    ).toContain('no row group metadata');
  });

  it('rejects a key part with "#", a bad event and a target that is not a positive whole number', () => {
    const ok = input(['a.csv'], ([key]) => [{ key, size: 1 }]);
    expect(
      errorOf(() => planExecution({ ...ok, binding: { tenant: 'a#b', source: 's' } })).field,
    ).toBe('tenant');
    expect(
      errorOf(() => planExecution({ ...ok, event: { ...ok.event, sequencer: 'xyz' } })).field,
    ).toBe('sequencer');
    expect(
      errorOf(() => planExecution({ ...ok, event: { ...ok.event, eventTime: 'yesterday' } })).field,
    ).toBe('eventTime');
    expect(errorOf(() => planExecution({ ...ok, targetRowsPerTask: 0 })).field).toBe(
      'targetRowsPerTask',
    );
  });
});

describe('executionOrder', () => {
  it('orders by event time, then by sequencer, as plain strings', () => {
    const orders = [
      { eventTime: '2026-11-02T06:00:00Z', sequencer: 'FF' },
      { eventTime: '2026-11-02T06:00:00.001Z', sequencer: '01' },
      { eventTime: '2026-11-02T06:00:00.000Z', sequencer: '100' },
      // 01:00Z: offsets are normalized to UTC before comparing.
      { eventTime: '2026-11-01T23:00:00.000-02:00', sequencer: '1' },
    ].map(executionOrder);
    expect([...orders].sort()).toEqual([orders[3], orders[0], orders[2], orders[1]]);
  });
});

describe('sourceIdOf', () => {
  it('escapes "#" (key separator) and "%"', () => {
    expect(sourceIdOf('b', 'x#y%z/focus')).toBe('b/x%23y%25z/focus');
  });
});
