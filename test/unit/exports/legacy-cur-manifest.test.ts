import { TransientError, ValidationError } from '../../../lambda/core/errors';
import { parseDeliveredManifest } from '../../../lambda/core/exports/delivered-manifest';
import { planDelivery, type RecordedPlan } from '../../../lambda/core/exports/plan-delivery';
import type { ExecutionPlan } from '../../../lambda/core/exports/plan';
import type { ExecutionRef } from '../../../lambda/core/exports/run-task';
import { legacyCurDelivery, type LegacyCurSpec } from '../../support/legacy-cur-delivery';

const COLUMNS = [
  'identity/LineItemId',
  'bill/PayerAccountId',
  'bill/BillingPeriodStartDate',
  'lineItem/UsageAccountId',
  'lineItem/LineItemType',
  'lineItem/UsageStartDate',
  'lineItem/ProductCode',
  'lineItem/CurrencyCode',
  'lineItem/UnblendedCost',
];

const SPEC: LegacyCurSpec = {
  bucket: 'exports',
  prefix: 'acme/cur',
  report: 'hourly',
  period: '2018-05',
  assemblyId: '8a7d1c2e-0b7e-4d55-9f6e-7c3c2f1d9a10',
  columns: COLUMNS,
  fileNames: ['hourly-1.csv.gz', 'hourly-2.csv.gz'],
};
const delivery = legacyCurDelivery(SPEC);
const uri = (key: string) => `s3://exports/${key}`;

const reasonOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return `${error.field}: ${error.reason}`;
    throw error;
  }
  throw new Error('expected a ValidationError');
};

const withDocument =
  (patch: Record<string, unknown>, key = delivery.periodManifestKey) =>
  () =>
    parseDeliveredManifest(JSON.stringify({ ...delivery.document, ...patch }), uri(key));

describe('legacy CUR manifest', () => {
  it('reads the assembly as the execution, the period from its folder, columns as category/name', () => {
    expect(delivery.periodManifestKey).toBe(
      'acme/cur/hourly/20180501-20180601/hourly-Manifest.json',
    );
    const manifest = parseDeliveredManifest(delivery.json, uri(delivery.periodManifestKey));
    expect(manifest).toMatchObject({
      bucket: 'exports',
      prefix: 'acme/cur',
      exportName: 'hourly',
      exportRoot: 'acme/cur/hourly',
      billingPeriod: '2018-05',
      executionId: SPEC.assemblyId,
      exportArn: 'report-id-hourly',
      format: 'cur-legacy-csv',
      manifestKey: delivery.periodManifestKey,
    });
    expect(manifest.columns.map((column) => column.name)).toEqual(COLUMNS);
    expect(manifest.dataFiles).toEqual(
      delivery.dataFileKeys.map((key) => ({
        uri: uri(key),
        bucket: 'exports',
        key,
        format: 'csv.gz',
      })),
    );
  });

  it("the assembly folder's copy is the same execution as the period folder's", () => {
    const fromAssembly = parseDeliveredManifest(delivery.json, uri(delivery.assemblyManifestKey));
    expect(fromAssembly).toEqual(
      parseDeliveredManifest(delivery.json, uri(delivery.periodManifestKey)),
    );
    expect(
      reasonOf(() =>
        parseDeliveredManifest(
          delivery.json,
          uri(delivery.assemblyManifestKey.replace(SPEC.assemblyId, 'other-assembly')),
        ),
      ),
    ).toMatch(/^assemblyId: .* does not match the manifest's folder other-assembly/);
  });

  it('accepts a period folder ending on the last day of the month, as AWS guide shows it', () => {
    const key = 'acme/cur/hourly/20180501-20180531/hourly-Manifest.json';
    const keys = delivery.dataFileKeys.map((file) => file.replace('20180601', '20180531'));
    expect(withDocument({ reportKeys: keys }, key)().billingPeriod).toBe('2018-05');
  });

  it('refuses a period folder that is not one month', () => {
    for (const folder of ['20180502-20180601', '20180501-20180701', '20180231-20180301']) {
      expect(reasonOf(withDocument({}, `acme/cur/hourly/${folder}/hourly-Manifest.json`))).toMatch(
        /^manifestKey: .* is not one month/,
      );
    }
  });

  it('binds the data files to the assembly folder of this report and period, in this bucket', () => {
    const other = (key: string) => withDocument({ reportKeys: [key] });
    const folder = 'acme/cur/hourly/20180501-20180601';
    for (const key of [
      `${folder}/another-assembly/hourly-1.csv.gz`,
      `acme/cur/other/20180501-20180601/${SPEC.assemblyId}/hourly-1.csv.gz`,
      `${folder}/${SPEC.assemblyId}/../x/hourly-1.csv.gz`,
      `acme/cur/hourly/hourly/year=2018/month=6/hourly-00001.snappy.parquet`,
      `acme/cur/hourly/hourly/year=2018/month=05/hourly-00001.snappy.parquet`,
      `acme/cur/hourly/hourly/year=2018/month=5/x/hourly-00001.snappy.parquet`,
      `tenant-b/cur/hourly/20180501-20180601/${SPEC.assemblyId}/hourly-1.csv.gz`,
    ]) {
      expect(reasonOf(other(key))).toMatch(
        /^reportKeys\[0\]: outside the folders of this report and period/,
      );
    }
    // The assembly folder's copy names only its own folder.
    expect(
      reasonOf(
        withDocument({ reportKeys: [`${folder}/hourly-1.csv.gz`] }, delivery.assemblyManifestKey),
      ),
    ).toMatch(
      /^reportKeys\[0\]: outside the folders of this report and period \(acme\/cur\/hourly\/20180501-20180601\/8a7d/,
    );
    expect(reasonOf(withDocument({ bucket: 'tenant-b-bucket' }))).toBe(
      'bucket: names tenant-b-bucket, not the bucket the manifest is in (exports)',
    );
    const twice = [delivery.dataFileKeys[0], delivery.dataFileKeys[0]];
    expect(reasonOf(withDocument({ reportKeys: twice }))).toMatch(
      /^reportKeys\[1\]: lists .* twice/,
    );
    expect(reasonOf(withDocument({ reportKeys: [] }))).toBe('reportKeys: lists no data file');
  });

  it('refuses ZIP reports and files it cannot read, rather than booking part of the period', () => {
    expect(reasonOf(withDocument({ compression: 'ZIP' }))).toMatch(
      /^compression: ZIP reports are not read/,
    );
    const zipped = delivery.dataFileKeys[0].replace('.csv.gz', '.csv.zip');
    expect(reasonOf(withDocument({ reportKeys: [zipped] }))).toMatch(
      /^reportKeys\[0\]: unsupported file type/,
    );
  });

  it('checks the declared billing period, the assembly id and the columns', () => {
    expect(
      reasonOf(
        withDocument({
          billingPeriod: { start: '20180601T000000.000Z', end: '20180701T000000.000Z' },
        }),
      ),
    ).toMatch(
      /^billingPeriod.start: 20180601T000000.000Z does not start the period folder 20180501-20180601/,
    );
    expect(reasonOf(withDocument({ billingPeriod: { start: '2018-05-01' } }))).toBe(
      'billingPeriod.start: expected yyyymmddThhmmss.sssZ',
    );
    expect(reasonOf(withDocument({ billingPeriod: undefined }))).toBe(
      'billingPeriod.start: required',
    );
    expect(reasonOf(withDocument({ assemblyId: '' }))).toBe('assemblyId: required');
    expect(reasonOf(withDocument({ columns: [{ name: 'UnblendedCost' }] }))).toBe(
      'columns[0].category: expected a column category',
    );
    expect(
      reasonOf(withDocument({ columns: [{ category: 'lineItem', name: 'UnblendedCost' }] })),
    ).toMatch(/^columns: /);
  });

  it('names both layouts when a key is in neither', () => {
    expect(
      reasonOf(() =>
        parseDeliveredManifest(delivery.json, uri('acme/cur/hourly/hourly-Manifest.json')),
      ),
    ).toMatch(
      /BILLING_PERIOD=YYYY-MM.*\(AWS Data Exports\) or <prefix>\/<report>\/<yyyymmdd-yyyymmdd>\/<report>-Manifest.json \(legacy CUR\)/,
    );
  });
});

describe('planning a legacy CUR delivery', () => {
  const setup = () => {
    const texts = new Map([
      [delivery.periodManifestKey, delivery.json],
      [delivery.assemblyManifestKey, delivery.json],
    ]);
    const plans = new Map<string, ExecutionPlan & { enqueued: boolean }>();
    const sent: unknown[] = [];
    const options = {
      sources: [{ tenant: 'acme', bucket: 'exports', prefix: 'acme' }],
      targetRowsPerTask: 100,
      objects: {
        readText: (_bucket: string, key: string) => Promise.resolve(texts.get(key) ?? ''),
        factsOf: (file: { key: string }) => Promise.resolve({ key: file.key, size: 10 }),
      },
      plans: {
        recordPlan: (plan: ExecutionPlan) => {
          if (plans.has(plan.executionId)) return Promise.resolve('duplicate' as const);
          plans.set(plan.executionId, { ...plan, enqueued: false });
          return Promise.resolve('planned' as const);
        },
        readPlan: (ref: ExecutionRef): Promise<RecordedPlan | undefined> => {
          const plan = plans.get(ref.executionId);
          return Promise.resolve(plan && { ...plan });
        },
        markEnqueued: (ref: ExecutionRef) => {
          const plan = plans.get(ref.executionId);
          if (plan) plan.enqueued = true;
          return Promise.resolve();
        },
      },
      queue: {
        send: (messages: readonly unknown[]) => Promise.resolve(void sent.push(...messages)),
      },
    };
    return { options, plans, sent };
  };
  const created = (key: string, eventTime = '2018-05-02T06:00:00.000Z') => ({
    bucket: 'exports',
    key,
    eventTime,
    sequencer: '0055AED6DCD90281E5',
  });

  it("is bound to the tenant owning the prefix; the assembly folder's copy is a duplicate", async () => {
    const { options, plans, sent } = setup();
    const first = await planDelivery(created(delivery.periodManifestKey), options);
    expect(first).toEqual({
      outcome: 'planned',
      ref: {
        tenant: 'acme',
        source: 'exports/acme/cur/hourly',
        period: '2018-05',
        executionId: SPEC.assemblyId,
      },
      tasks: 2,
    });
    expect(plans.get(SPEC.assemblyId)?.order).toBe(
      `2018-05-02T06:00:00.000Z#${'0055AED6DCD90281E5'.padStart(32, '0')}`,
    );
    const copy = await planDelivery(
      created(delivery.assemblyManifestKey, '2018-05-02T06:00:00.500Z'),
      options,
    );
    expect(copy.outcome).toBe('duplicate');
    expect(sent).toHaveLength(2);
  });

  it('a prefix no source owns is refused, naming the config to change', async () => {
    const { options } = setup();
    options.sources = [{ tenant: 'other', bucket: 'exports', prefix: 'other' }];
    await expect(planDelivery(created(delivery.periodManifestKey), options)).rejects.toThrow(
      /no configured export source owns s3:\/\/exports\/acme\/cur\/hourly\/20180501-20180601/,
    );
  });
});

describe('a legacy CUR set to overwrite its report', () => {
  const overwrite = legacyCurDelivery({ ...SPEC, layout: 'overwrite' });
  const athena = legacyCurDelivery({
    ...SPEC,
    layout: 'athena',
    fileNames: ['hourly-00001.snappy.parquet', 'hourly-00002.snappy.parquet'],
  });

  it('reads CSV files written directly in the period folder', () => {
    const manifest = parseDeliveredManifest(overwrite.json, uri(overwrite.periodManifestKey));
    expect(manifest.dataFiles.map((file) => file.key)).toEqual([
      'acme/cur/hourly/20180501-20180601/hourly-1.csv.gz',
      'acme/cur/hourly/20180501-20180601/hourly-2.csv.gz',
    ]);
    expect(manifest.dataStatusKey).toBeUndefined();
  });

  it("reads the Athena layout's Parquet partition of the period's month, and names its data-status object", () => {
    const manifest = parseDeliveredManifest(athena.json, uri(athena.periodManifestKey));
    expect(manifest).toMatchObject({
      executionId: SPEC.assemblyId,
      billingPeriod: '2018-05',
      dataStatusKey:
        'acme/cur/hourly/cost_and_usage_data_status/cost_and_usage_data_status.parquet',
    });
    expect(manifest.dataFiles.map((file) => [file.key, file.format])).toEqual([
      ['acme/cur/hourly/hourly/year=2018/month=5/hourly-00001.snappy.parquet', 'parquet'],
      ['acme/cur/hourly/hourly/year=2018/month=5/hourly-00002.snappy.parquet', 'parquet'],
    ]);
  });

  describe('planning', () => {
    const setup = (status: string | undefined) => {
      const reads: { key: string; versionId?: string }[] = [];
      const versions = new Map<string, string>();
      const planned: ExecutionPlan[] = [];
      const options = {
        sources: [{ tenant: 'acme', bucket: 'exports', prefix: 'acme' }],
        targetRowsPerTask: 100,
        objects: {
          readText: (_bucket: string, key: string, versionId?: string) => {
            reads.push({ key, versionId });
            return Promise.resolve(versions.get(versionId ?? '') ?? '');
          },
          dataStatus: (_bucket: string, key: string) => {
            expect(key).toBe(athena.dataStatusKey);
            return Promise.resolve(status);
          },
          factsOf: (file: { key: string }) =>
            Promise.resolve({ key: file.key, size: 10, rowGroups: [5] }),
        },
        plans: {
          recordPlan: (plan: ExecutionPlan) =>
            Promise.resolve(void planned.push(plan)).then(() => 'planned' as const),
          readPlan: (): Promise<RecordedPlan | undefined> => Promise.resolve(undefined),
          markEnqueued: () => Promise.resolve(),
        },
        queue: { send: () => Promise.resolve() },
      };
      return { options, reads, versions, planned };
    };
    const created = (key: string, versionId: string) => ({
      bucket: 'exports',
      key,
      eventTime: '2018-05-02T06:00:00.000Z',
      sequencer: '0055AED6DCD90281E5',
      versionId,
    });

    it('plans an Athena delivery only once the data-status object reads READY', async () => {
      for (const status of ['UPDATING', undefined]) {
        const { options, versions, planned } = setup(status);
        versions.set('v1', athena.json);
        await expect(
          planDelivery(created(athena.periodManifestKey, 'v1'), options),
        ).rejects.toThrow(TransientError);
        expect(planned).toHaveLength(0);
      }
      const { options, versions, planned } = setup('READY');
      versions.set('v1', athena.json);
      expect((await planDelivery(created(athena.periodManifestKey, 'v1'), options)).outcome).toBe(
        'planned',
      );
      expect(planned).toHaveLength(1);
      expect(planned[0].tasks).toHaveLength(2);
    });

    it('reads the version of the period manifest that was notified; a new assembly is a new snapshot', async () => {
      const { options, reads, versions, planned } = setup('READY');
      const next = legacyCurDelivery({
        ...SPEC,
        layout: 'overwrite',
        assemblyId: 'second-assembly',
      });
      versions.set('v1', overwrite.json);
      versions.set('v2', next.json);
      // v2 overwrote the key before v1's notification is processed: v1 is still planned as v1.
      await planDelivery(created(overwrite.periodManifestKey, 'v1'), options);
      await planDelivery(created(overwrite.periodManifestKey, 'v2'), options);
      expect(reads.map((read) => read.versionId)).toEqual(['v1', 'v2']);
      expect(planned.map((plan) => plan.executionId)).toEqual([SPEC.assemblyId, 'second-assembly']);
    });
  });
});
