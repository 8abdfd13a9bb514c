import { ValidationError } from '../../../lambda/core/errors';
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
      `${folder}/hourly-1.csv.gz`,
      `${folder}/${SPEC.assemblyId}/../x/hourly-1.csv.gz`,
      `tenant-b/cur/hourly/20180501-20180601/${SPEC.assemblyId}/hourly-1.csv.gz`,
    ]) {
      expect(reasonOf(other(key))).toMatch(/^reportKeys\[0\]: outside the assembly's folder/);
    }
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
