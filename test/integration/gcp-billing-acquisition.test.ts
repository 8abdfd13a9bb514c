/**
 * The Google Cloud billing acquisition against a local BigQuery stand-in (local/emulators/bigquery-stand-in.ts,
 * with its token endpoint checking the service account's signed assertion), the local S3 (our export
 * bucket) and DynamoDB Local (the cursor and the ledger): a pull killed after any write resumes and
 * ends with exactly one execution holding every row once and the stand-in's total; throttles are
 * honoured (no request before the Retry-After); a dropped page, a 5xx and an expired page token are
 * survived; a re-acquisition of the month supersedes the earlier snapshot through the real planner and
 * switch; the scheduled function continues a long throttle as a delayed step, and the same step
 * delivered twice writes nothing the second time.
 */
import { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import Big from 'big.js';
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose';
import { AcquisitionBucket } from '../../lambda/adapters/acquisition-bucket';
import { BigQueryRest } from '../../lambda/adapters/bigquery-rest';
import { GcpAcquisitionCursor } from '../../lambda/adapters/gcp-acquisition-cursor';
import { serviceAccountToken } from '../../lambda/adapters/google-service-account-token';
import { readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import { ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import { pullGcpBilling, type GcpCursorPort } from '../../lambda/core/acquisition/gcp-billing-pull';
import type { AcquisitionBucketPort } from '../../lambda/core/acquisition/manifest-last';
import { parseManifest } from '../../lambda/core/exports/manifest';
import { planExecution, sourceIdOf } from '../../lambda/core/exports/plan';
import { readCsvRows } from '../../lambda/core/exports/readers/csv';
import { runExportTask } from '../../lambda/core/exports/run-task';
import { localS3ClientConfig, startLocalS3, type LocalS3 } from '../../local/emulators/s3';
import {
  monthTotalsOf,
  startBigQueryStandIn,
  type BigQueryStandIn,
  type StandInRow,
} from '../../local/emulators/bigquery-stand-in';
import { useExportLedger } from '../support/file-fixtures';
import { S3Client } from '@aws-sdk/client-s3';
import type { SQSEvent } from 'aws-lambda';
import { acquisitionStepBody } from '../../contract/acquisition-step';
import { ENV } from '../../contract/environment';
import { GCP_ACQUISITION_ENV } from '../../contract/gcp-acquisition';
import { createTelemetry } from '../../lambda/adapters/telemetry';
import type { StepToSend } from '../../lambda/core/acquisition/acquisition-steps';
import { createGcpAcquisitionHandler } from '../../lambda/handlers/gcp-acquisition';

const BUCKET = 'exports';
const CLIENT_EMAIL = 'billing-reader@billing-reader-project.iam.gserviceaccount.com';
const BILLING_ACCOUNT = '01A2B3-C4D5E6-F7A8B9';
const PROJECTS = ['acme-web-prod', 'acme-data'];
const ledger = useExportLedger();

let s3: LocalS3;
let s3Client: S3Client;
let standIn: BigQueryStandIn;
let privateKey: string;
/** The test's clock: sleeping moves it, nothing waits for real. */
let clockMs = Date.parse('2024-10-03T06:00:00Z');
const clock = () => clockMs;
const sleep = async (ms: number) => {
  clockMs += ms;
};

beforeAll(async () => {
  const keys = await generateKeyPair('RS256', { extractable: true });
  privateKey = await exportPKCS8(keys.privateKey);
  [s3, standIn] = await Promise.all([
    startLocalS3({ buckets: [BUCKET] }),
    startBigQueryStandIn({
      clock,
      publicKeyPem: await exportSPKI(keys.publicKey),
      clientEmail: CLIENT_EMAIL,
    }),
  ]);
  s3Client = new S3Client({
    ...localS3ClientConfig(s3.endpoint),
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
});

afterAll(async () => {
  s3Client?.destroy();
  await Promise.all([s3?.stop(), standIn?.stop()]);
});

beforeEach(() => {
  standIn.faults.length = 0;
});

/** A usage row of September 2024 (invoice month 202409): cost and credits as the API writes floats. */
const usageRow = (index: number, partitionDay: string, exportTime: string): StandInRow => {
  const start = new Date(Date.UTC(2024, 8, 1 + (index % 28), index % 24));
  const end = new Date(start.getTime() + 3_600_000);
  const project = PROJECTS[index % PROJECTS.length];
  return {
    partitionDay,
    exportTime,
    invoiceMonth: '202409',
    cells: [
      { v: BILLING_ACCOUNT },
      { v: project },
      { v: index % 3 === 0 ? 'Cloud Storage' : 'Compute Engine' },
      { v: `SKU-${index}` },
      { v: `sku ${index}, "quoted"` },
      { v: 'us-central1' },
      { v: start.toISOString().replace('Z', '000Z') },
      { v: end.toISOString().replace('Z', '000Z') },
      { v: 'regular' },
      { v: 'USD' },
      { v: index % 5 === 0 ? `${index + 1}.5E-3` : `${index}.123456` },
      { v: index % 2 === 0 ? [{ v: '-0.1' }, { v: `-${index % 7}.01` }] : [] },
      { v: '1.0' },
      { v: 'hour' },
    ],
  };
};

const taxRow = (exportTime: string): StandInRow => ({
  partitionDay: '2024-10-02',
  exportTime,
  invoiceMonth: '202409',
  cells: [
    { v: BILLING_ACCOUNT },
    { v: null },
    { v: 'Invoice' },
    { v: null },
    { v: null },
    { v: null },
    { v: '2024-09-01T00:00:00.000000Z' },
    { v: '2024-10-01T00:00:00.000000Z' },
    { v: 'tax' },
    { v: 'USD' },
    { v: '12.34' },
    { v: [] },
    { v: null },
    { v: null },
  ],
});

/** The stand-in's truth: Σ cost + Σ credits of the month's rows, exactly. */
const truth = (rows: readonly StandInRow[]): string => monthTotalsOf(rows, '202409').USD;

const ROWS = 25;
const seedRows = (): void => {
  if (standIn.rows.length > 0) return;
  for (let i = 0; i < ROWS; i++)
    standIn.rows.push(
      usageRow(
        i,
        i < 12 ? '2024-09-20' : '2024-10-01',
        i < 12 ? '2024-09-20T08:00:00.000000Z' : '2024-10-01T08:00:00.000000Z',
      ),
    );
  standIn.rows.push(taxRow('2024-10-02T05:00:00.000000Z'));
};

const wiring = (name: string) => {
  const bigquery = new BigQueryRest({
    project: 'billing-reader-project',
    endpoint: standIn.endpoint,
    token: serviceAccountToken(
      { clientEmail: CLIENT_EMAIL, privateKey },
      { tokenEndpoint: standIn.tokenEndpoint, now: clock },
    ),
    now: clock,
    sleep,
    random: () => 0.5,
  });
  return {
    bigquery,
    bucket: new AcquisitionBucket(s3Client, BUCKET),
    cursor: new GcpAcquisitionCursor({
      client: ledger.dynamo,
      ledgerTable: ledger.tables.ledgerTable,
      sourceId: `billing-reader-project.billing.${name}`,
    }),
    spec: {
      table: `billing-reader-project.billing.${name}`,
      location: 'US',
      bucket: BUCKET,
      prefix: name,
      exportName: 'gcp-billing',
    },
  };
};

class Killed extends Error {}

const instrumented = (
  bucket: AcquisitionBucketPort,
  cursor: GcpCursorPort,
  counts: { writes: number },
  killAfter = Infinity,
) => {
  const step = async <T>(write: () => Promise<T>): Promise<T> => {
    const result = await write();
    counts.writes++;
    if (counts.writes >= killAfter) throw new Killed(`killed after write ${counts.writes}`);
    return result;
  };
  return {
    bucket: {
      readText: (key: string) => bucket.readText(key),
      putText: (key: string, text: string, type?: string) =>
        step(() => bucket.putText(key, text, type)),
    },
    cursor: {
      readWatermarks: () => cursor.readWatermarks(),
      readMonth: (period: string) => cursor.readMonth(period),
      writeWatermarks: (marks: Parameters<GcpCursorPort['writeWatermarks']>[0]) =>
        step(() => cursor.writeWatermarks(marks)),
      writeMonth: (month: Parameters<GcpCursorPort['writeMonth']>[0]) =>
        step(() => cursor.writeMonth(month)),
    },
  };
};

const textOf = async (key: string): Promise<string> => {
  const response = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return (response.Body as { transformToString(): Promise<string> }).transformToString();
};

const keysUnder = async (prefix: string): Promise<string[]> => {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key as string).sort();
};

const manifestsUnder = async (prefix: string) =>
  (await keysUnder(`${prefix}/`)).filter((key) => key.endsWith('-Manifest.json'));

/** Every data row of a written execution (its manifest's files), and their BilledCost total. */
const executionRows = async (manifestKey: string) => {
  const manifest = parseManifest(await textOf(manifestKey), `s3://${BUCKET}/${manifestKey}`);
  const rows: Record<string, unknown>[] = [];
  for (const file of manifest.dataFiles)
    for await (const row of readCsvRows(Readable.from([Buffer.from(await textOf(file.key))]), {
      gzip: false,
    }))
      rows.push(row.cells);
  const total = rows.reduce((sum, row) => sum.plus(row.BilledCost as string), new Big(0));
  return { manifest, rows, total: total.toFixed().replace(/\.?0+$/, '') };
};

const skuIds = (rows: readonly Record<string, unknown>[]) =>
  rows.map((row) => String(row.SkuId ?? 'tax')).sort();

describe('GCP billing acquisition, killed after each write', () => {
  // One month of 26 rows in pages of 10: month cursor (new, inserted), 3 × (page, cursor), manifest,
  // cursor done, watermarks.
  const WRITES = 11;

  it.each(Array.from({ length: WRITES }, (_, index) => index + 1))(
    'killed after write %i of 11, the next pass ends with one execution: every row once, the stand-in total',
    async (killAfter) => {
      seedRows();
      const name = `kill_${killAfter}`;
      const { bigquery, bucket, cursor, spec } = wiring(name);
      const counts = { writes: 0 };
      await expect(
        pullGcpBilling(
          spec,
          { bigquery, ...instrumented(bucket, cursor, counts, killAfter) },
          { pageRows: 10, now: clock },
        ),
      ).rejects.toThrow(Killed);
      expect(await manifestsUnder(name)).toHaveLength(killAfter >= 9 ? 1 : 0);

      const report = await pullGcpBilling(
        spec,
        { bigquery, ...instrumented(bucket, cursor, counts) },
        { pageRows: 10, now: clock },
      );

      expect(counts.writes).toBeGreaterThanOrEqual(WRITES);
      const manifests = await manifestsUnder(name);
      expect(manifests).toHaveLength(1);
      const { manifest, rows, total } = await executionRows(manifests[0]);
      expect(manifest).toMatchObject({ billingPeriod: '2024-09', format: 'focus' });
      expect(rows).toHaveLength(ROWS + 1);
      expect(new Set(skuIds(rows)).size).toBe(ROWS + 1);
      expect(total).toBe(truth(standIn.rows));
      expect(report.changed).toEqual(killAfter === WRITES ? [] : ['202409']);

      // A third pass finds nothing changed.
      const again = await pullGcpBilling(
        spec,
        { bigquery, bucket, cursor },
        { pageRows: 10, now: clock },
      );
      expect(again).toMatchObject({ changed: [], months: [] });
    },
  );
});

describe('GCP billing acquisition, provider faults', () => {
  it('honours each throttle (no request before Retry-After), survives a 5xx and a dropped page, and restarts on an expired page token', async () => {
    seedRows();
    const { bigquery, bucket, cursor, spec } = wiring('faults');
    standIn.faults.push(
      { kind: 'throttle', status: 429, retryAfterSeconds: 7 },
      { kind: 'throttle', status: 403, retryAfterSeconds: 3 },
    );
    const firstRequest = standIn.requests.length;
    const probeStart = clockMs;
    const report = await (async () => {
      // After the probe: a 503, then a page dropped mid-body, then an expired token on page 2.
      const original = bigquery.page.bind(bigquery);
      let pages = 0;
      bigquery.page = async (job, token, max) => {
        pages++;
        if (pages === 1) standIn.faults.push({ kind: 'server-error' }, { kind: 'drop-mid-page' });
        if (pages === 2) standIn.faults.push({ kind: 'expire-page-token' });
        return original(job, token, max);
      };
      return pullGcpBilling(spec, { bigquery, bucket, cursor }, { pageRows: 10, now: clock });
    })();

    const requests = standIn.requests.slice(firstRequest).filter((r) => r.path !== '/token');
    // The two throttled probe attempts, then the probe: 7 s, then 3 s later at the earliest.
    expect(requests[1].atMs - requests[0].atMs).toBeGreaterThanOrEqual(7000);
    expect(requests[2].atMs - requests[1].atMs).toBeGreaterThanOrEqual(3000);
    expect(requests[0].atMs).toBeGreaterThanOrEqual(probeStart);
    expect(bigquery.stats).toMatchObject({ throttles: 2, throttleWaitMs: 10_000 });
    expect(bigquery.stats.retries).toBeGreaterThanOrEqual(2);
    expect(report.months).toEqual([
      expect.objectContaining({ period: '2024-09', restarts: 1, rows: ROWS + 1 + 10 }),
    ]);
    const manifests = await manifestsUnder('faults');
    expect(manifests).toHaveLength(1);
    const { rows, total, manifest } = await executionRows(manifests[0]);
    expect(rows).toHaveLength(ROWS + 1);
    expect(total).toBe(truth(standIn.rows));
    // The restarted job's pages only: the first job's page, without a manifest, is never read.
    expect(manifest.executionId).toBe(standIn.jobsInserted.at(-1));
  });

  it('a pull stopped mid-month whose results expired (24 h) runs the query again as a new execution', async () => {
    seedRows();
    const { bigquery, bucket, cursor, spec } = wiring('expired');
    await expect(
      pullGcpBilling(
        spec,
        { bigquery, ...instrumented(bucket, cursor, { writes: 0 }, 4) },
        { pageRows: 10, now: clock },
      ),
    ).rejects.toThrow(Killed);
    const firstJob = (await cursor.readMonth('2024-09'))?.jobId;
    standIn.expireAllJobs();
    clockMs += 25 * 3_600_000;
    const report = await pullGcpBilling(
      spec,
      { bigquery, bucket, cursor },
      { pageRows: 10, now: clock },
    );
    expect(report.months[0]).toMatchObject({ restarts: 1, rows: ROWS + 1 });
    expect(report.months[0].executionId).not.toBe(firstJob);
    const { total } = await executionRows((await manifestsUnder('expired'))[0]);
    expect(total).toBe(truth(standIn.rows));
  });
});

describe('GCP billing acquisition through the planner and the switch', () => {
  const plan = async (
    tenant: string,
    manifestKey: string,
    eventTime: string,
    sequencer: string,
  ) => {
    const manifest = parseManifest(await textOf(manifestKey), `s3://${BUCKET}/${manifestKey}`);
    const texts = new Map<string, string>();
    for (const file of manifest.dataFiles) texts.set(file.key, await textOf(file.key));
    const executionPlan = planExecution({
      manifest,
      binding: { tenant, source: sourceIdOf(manifest.bucket, manifest.exportRoot) },
      event: { eventTime, sequencer },
      files: [...texts].map(([key, text]) => ({ key, size: Buffer.byteLength(text) })),
      targetRowsPerTask: 100_000,
    });
    await ledger.store.recordPlan(executionPlan);
    const ref = {
      tenant,
      source: executionPlan.source,
      period: executionPlan.period,
      executionId: executionPlan.executionId,
    };
    const reports = [];
    for (const task of executionPlan.tasks)
      reports.push(
        await runExportTask({
          ref,
          task,
          store: ledger.store,
          openRows: (opened, fromRow) =>
            readCsvRows(Readable.from([Buffer.from(texts.get(opened.objectKey) ?? '')]), {
              gzip: false,
              fromRow,
            }),
          context: { tenant, billingPeriod: executionPlan.period, source: 'gcp' },
          subChunkRows: 100,
        }),
      );
    return { ref, reports };
  };

  const statementTotal = async (tenant: string): Promise<string> => {
    let sum = new Big(0);
    for (const account of [...PROJECTS, BILLING_ACCOUNT])
      for (const row of await readPartitionTotals(
        ledger.dynamo,
        ledger.tables.ledgerTable,
        ledgerPartitionKeyOf(tenant, account, '2024-09'),
      ))
        sum = sum.plus(row.total);
    return sum.toFixed().replace(/\.?0+$/, '');
  };

  it('a re-acquisition of the month after a correction lands supersedes the earlier snapshot', async () => {
    seedRows();
    const tenant = 'gcp-switch';
    const { bigquery, bucket, cursor, spec } = wiring(tenant);
    const first = await pullGcpBilling(
      spec,
      { bigquery, bucket, cursor },
      { pageRows: 10, now: clock },
    );
    const [firstManifest] = await manifestsUnder(tenant);
    const older = await plan(tenant, firstManifest, '2024-10-03T06:10:00.000Z', '0001');
    expect(older.reports.at(-1)?.switched).toMatchObject({ outcome: 'current' });
    expect(await statementTotal(tenant)).toBe(truth(standIn.rows));

    // Google appends a correction (a credit row) in a later partition.
    const correction = usageRow(99, '2024-10-03', '2024-10-03T07:00:00.000000Z');
    correction.cells[10] = { v: '0' };
    correction.cells[11] = { v: [{ v: '-3.25' }] };
    const rowsBefore = [...standIn.rows];
    standIn.rows.push(correction);
    try {
      const second = await pullGcpBilling(
        spec,
        { bigquery, bucket, cursor },
        { pageRows: 10, now: clock },
      );
      expect(second.changed).toEqual(['202409']);
      expect(second.months[0].executionId).not.toBe(first.months[0].executionId);
      const newer = (await manifestsUnder(tenant)).find((key) => key !== firstManifest) as string;
      const switched = await plan(tenant, newer, '2024-10-03T07:10:00.000Z', '0002');
      expect(switched.reports.at(-1)?.switched).toMatchObject({ outcome: 'current' });
      expect(await ledger.store.readCurrent(tenant, older.ref.source, '2024-09')).toMatchObject({
        executionId: second.months[0].executionId,
      });
      expect((await ledger.store.readExecution(older.ref))?.status).toBe('superseded');
      expect(await statementTotal(tenant)).toBe(truth(standIn.rows));
      expect(truth(standIn.rows)).toBe(
        new Big(truth(rowsBefore))
          .minus('3.25')
          .toFixed()
          .replace(/\.?0+$/, ''),
      );
    } finally {
      standIn.rows.splice(standIn.rows.indexOf(correction), 1);
    }
  });
});

describe('GCP billing acquisition continued through the step queue', () => {
  it('a throttle of 901 s is not slept: the step is delayed (900 s, then 1 s), runs, and delivered again writes nothing', async () => {
    seedRows();
    const name = 'steps';
    const table = `billing-reader-project.billing.${name}`;
    const env = {
      [GCP_ACQUISITION_ENV.sources]: JSON.stringify([
        {
          tenant: 'acme',
          jobProject: 'billing-reader-project',
          table,
          location: 'US',
          secretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:gcp-AbCdEf',
          prefix: name,
          exportName: 'gcp-billing',
        },
      ]),
      [ENV.exportBucketName]: BUCKET,
      [ENV.ledgerTableName]: ledger.tables.ledgerTable,
    };
    const puts: string[] = [];
    const sent: StepToSend[] = [];
    const handler = createGcpAcquisitionHandler(
      env,
      // The real adapters, new for each pass as in the function: BigQuery over REST, S3, DynamoDB.
      async () => {
        const { bigquery, bucket, cursor } = wiring(name);
        return {
          bigquery,
          cursor,
          bucket: {
            readText: (key: string) => bucket.readText(key),
            putText: async (key: string, text: string, type?: string) => {
              puts.push(key);
              await bucket.putText(key, text, type);
            },
          },
        };
      },
      createTelemetry(env),
      { queue: { send: async (steps) => void sent.push(...steps) }, now: clock },
    );
    const record = (body: string, receives: number) =>
      ({
        Records: [
          {
            messageId: `m-${receives}`,
            body,
            attributes: { ApproximateReceiveCount: `${receives}` },
          },
        ],
      }) as unknown as SQSEvent;
    const minutes15 = { getRemainingTimeInMillis: () => 15 * 60_000 };

    standIn.faults.push({ kind: 'throttle', status: 429, retryAfterSeconds: 901 });
    const throttledAt = clockMs;
    const scheduled = await handler({ tenant: 'acme' }, minutes15);
    expect(scheduled.passes).toEqual([
      expect.objectContaining({ sourceId: table, throttledUntil: throttledAt + 901_000 }),
    ]);
    expect(clockMs).toBe(throttledAt); // nothing slept
    const [{ step, delaySeconds }] = sent.splice(0);
    expect(delaySeconds).toBe(900);
    const body = acquisitionStepBody(step);

    clockMs += 900_000;
    expect(await handler(record(body, 1), minutes15)).toEqual({ batchItemFailures: [] });
    expect(sent.splice(0)).toEqual([{ step, delaySeconds: 1 }]);
    expect(puts).toEqual([]);

    clockMs += 1_000;
    expect(await handler(record(body, 1), minutes15)).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([]);
    const keys = await keysUnder(`${name}/`);
    const written = await Promise.all(keys.map(textOf));
    expect(puts).toHaveLength(2); // one page of 26 rows, then the manifest
    const manifests = await manifestsUnder(name);
    expect(manifests).toHaveLength(1);
    const { rows, total } = await executionRows(manifests[0]);
    expect(rows).toHaveLength(ROWS + 1);
    expect(total).toBe(truth(standIn.rows));

    // The same message again (a redelivery, or a second step for the table): nothing is written.
    expect(await handler(record(body, 2), minutes15)).toEqual({ batchItemFailures: [] });
    expect(puts).toHaveLength(2);
    expect(await keysUnder(`${name}/`)).toEqual(keys);
    expect(await Promise.all(keys.map(textOf))).toEqual(written);
  });
});
