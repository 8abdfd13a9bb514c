/**
 * The scheduled acquisition functions continuing through their step queue, over in-memory ports (the
 * cursor and the bucket kept across invocations, as they are durable): a pass short of time or
 * throttled is continued as a step instead of waiting; a step delivered twice writes nothing the
 * second time; a step that keeps failing fails its record, then goes to the DLQ with the provider's
 * error on its last receive.
 */
import type { SQSEvent } from 'aws-lambda';
import { AZURE_ACQUISITION_ENV, type AzureExportSource } from '../../../contract/azure-acquisition';
import { acquisitionStepBody, type AcquisitionStep } from '../../../contract/acquisition-step';
import { ENV } from '../../../contract/environment';
import { GCP_ACQUISITION_ENV, type GcpBillingSource } from '../../../contract/gcp-acquisition';
import { ThrottledError } from '../../../lambda/adapters/bigquery-rest';
import { createTelemetry } from '../../../lambda/adapters/telemetry';
import type { StepToSend } from '../../../lambda/core/acquisition/acquisition-steps';
import type { AzureSourcePorts } from '../../../lambda/core/acquisition/azure-source-passes';
import type { MonthCursor } from '../../../lambda/core/acquisition/gcp-billing-pull';
import type { BigQueryRow } from '../../../lambda/core/acquisition/gcp-billing-rows';
import type { Watermarks } from '../../../lambda/core/acquisition/gcp-watermarks';
import type { Rejection, SqsRecordInput } from '../../../lambda/core/ports';
import { createAzureAcquisitionHandler } from '../../../lambda/handlers/azure-acquisition';
import { createGcpAcquisitionHandler } from '../../../lambda/handlers/gcp-acquisition';
import { memoryBucket, memoryContainer, memoryCursor } from '../../support/azure-memory-export';

const FOLDER = 'cost-exports/acme-focus-daily/';
const azureSource = (container: string): AzureExportSource => ({
  tenant: 'acme',
  storageAccountUrl: 'https://acmecosts.blob.core.windows.net',
  container,
  exportFolder: FOLDER,
  secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:acme-azure-AbCdEf',
  prefix: 'acme/azure',
});
const AZURE_ID = (container: string) =>
  `acmecosts.blob.core.windows.net/${container}/cost-exports/acme-focus-daily`;
const baseEnv = {
  [ENV.exportBucketName]: 'export-bucket',
  [ENV.ledgerTableName]: 'ledger',
  [ENV.acquisitionStepMaxReceiveCount]: '3',
  POWERTOOLS_DEV: 'false',
  [ENV.logLevel]: 'ERROR',
};
const azureEnv = {
  ...baseEnv,
  [AZURE_ACQUISITION_ENV.sources]: JSON.stringify([azureSource('exports'), azureSource('more')]),
};

/** The step queue and the DLQ, in memory. */
const queues = (now: () => number) => {
  const sent: StepToSend[] = [];
  const deadLetters: { record: SqsRecordInput; rejection: Rejection }[] = [];
  return {
    sent,
    deadLetters,
    seams: {
      queue: { send: async (steps: readonly StepToSend[]) => void sent.push(...steps) },
      deadLetters: {
        send: async (record: SqsRecordInput, rejection: Rejection) =>
          void deadLetters.push({ record, rejection }),
      },
      now,
    },
  };
};

const stepEvent = (step: AcquisitionStep | string, receives = 1, messageId = 'm-1'): SQSEvent =>
  ({
    Records: [
      {
        messageId,
        body: typeof step === 'string' ? step : acquisitionStepBody(step),
        attributes: { ApproximateReceiveCount: String(receives) },
        messageAttributes: {},
      },
    ],
  }) as unknown as SQSEvent;

const azureHandler = (
  factory: Parameters<typeof createAzureAcquisitionHandler>[1],
  q: ReturnType<typeof queues>,
) => createAzureAcquisitionHandler(azureEnv, factory, createTelemetry(azureEnv), q.seams);

const minutes = (n: number) => ({ getRemainingTimeInMillis: () => n * 60_000 });

/** Each Azure source's ports, kept across invocations; every write counted. */
const azureWorld = (months: string[]) => {
  const ports = new Map<string, AzureSourcePorts & { bucket: ReturnType<typeof memoryBucket> }>();
  let writes = 0;
  const factory = async (s: AzureExportSource) => {
    if (!ports.has(s.container)) {
      const container = memoryContainer(FOLDER, months);
      const bucket = memoryBucket(container);
      const counted = {
        ...bucket,
        putText: async (key: string, text: string, type?: string) => {
          writes++;
          return bucket.putText(key, text, type);
        },
        copyBlob: async (blob: { name: string; size: number; etag: string }, key: string) => {
          writes++;
          return bucket.copyBlob(blob, key);
        },
      };
      ports.set(s.container, { container, bucket: counted, cursor: memoryCursor() });
    }
    return ports.get(s.container) as AzureSourcePorts & { bucket: ReturnType<typeof memoryBucket> };
  };
  return { ports, factory, writes: () => writes };
};

const objectsOf = (world: ReturnType<typeof azureWorld>, container: string) =>
  [...(world.ports.get(container)?.bucket.objects ?? [])].sort(([a], [b]) => a.localeCompare(b));

describe('an Azure acquisition continued through its step queue', () => {
  it('a schedule short of time sends one step per unfinished source, without delay, and does not fail', async () => {
    const world = azureWorld(['2024-07', '2024-08']);
    const q = queues(() => 0);
    const handler = azureHandler(world.factory, q);
    const result = await handler({ tenant: 'acme' }, minutes(2));
    expect(result.passes.map((pass) => pass.skipped)).toEqual([true, true]);
    expect(q.sent).toEqual([
      {
        step: { v: 1, tenant: 'acme', sourceId: AZURE_ID('exports'), reason: 'time' },
        delaySeconds: 0,
      },
      {
        step: { v: 1, tenant: 'acme', sourceId: AZURE_ID('more'), reason: 'time' },
        delaySeconds: 0,
      },
    ]);
    expect(world.writes()).toBe(0);
  });

  it('a step resumes its source from the cursor; the same step delivered again writes nothing and leaves identical objects', async () => {
    const world = azureWorld(['2024-07', '2024-08', '2024-09']);
    const q = queues(() => 0);
    const handler = azureHandler(world.factory, q);
    const step: AcquisitionStep = {
      v: 1,
      tenant: 'acme',
      sourceId: AZURE_ID('exports'),
      reason: 'time',
    };
    const first = await handler(stepEvent(step), minutes(15));
    expect(first).toEqual({ batchItemFailures: [] });
    const afterFirst = objectsOf(world, 'exports');
    const writes = world.writes();
    // 3 runs × (1 blob + 1 manifest); the other source is not touched by this step.
    expect(writes).toBe(6);
    expect(world.ports.has('more')).toBe(false);

    const again = await handler(stepEvent(step, 2), minutes(15));
    expect(again).toEqual({ batchItemFailures: [] });
    expect(world.writes()).toBe(writes);
    expect(objectsOf(world, 'exports')).toEqual(afterFirst);
    expect(q.sent).toEqual([]);
  });

  it('a step whose pass fails fails its record until its last receive, then goes to the DLQ with the error', async () => {
    const q = queues(() => 0);
    const failing = async (): Promise<AzureSourcePorts> => {
      throw new Error('AuthorizationPermissionMismatch: this request is not authorized');
    };
    const handler = azureHandler(failing, q);
    const step: AcquisitionStep = {
      v: 1,
      tenant: 'acme',
      sourceId: AZURE_ID('more'),
      reason: 'time',
    };
    for (const receives of [1, 2])
      expect(await handler(stepEvent(step, receives, `m-${receives}`), minutes(15))).toEqual({
        batchItemFailures: [{ itemIdentifier: `m-${receives}` }],
      });
    expect(q.deadLetters).toEqual([]);

    expect(await handler(stepEvent(step, 3, 'm-3'), minutes(15))).toEqual({
      batchItemFailures: [],
    });
    expect(q.deadLetters).toHaveLength(1);
    expect(q.deadLetters[0].record.body).toBe(acquisitionStepBody(step));
    expect(q.deadLetters[0].rejection).toEqual({
      code: 'retries-exhausted',
      field: AZURE_ID('more'),
      reason:
        `Azure step of ${AZURE_ID('more')} failed on its last receive (3 of 3): ` +
        'AuthorizationPermissionMismatch: this request is not authorized',
    });
    expect(q.sent).toEqual([]);
  });

  it('a body that is no step goes to the DLQ at once; a step of a source no longer configured is dropped', async () => {
    const world = azureWorld(['2024-07']);
    const q = queues(() => 0);
    const handler = azureHandler(world.factory, q);
    expect(await handler(stepEvent('{"tenant":"acme"}'), minutes(15))).toEqual({
      batchItemFailures: [],
    });
    expect(q.deadLetters.map((d) => d.rejection.code)).toEqual(['malformed-body']);
    const gone = { v: 1, tenant: 'acme', sourceId: 'elsewhere', reason: 'time' } as const;
    expect(await handler(stepEvent(gone), minutes(15))).toEqual({ batchItemFailures: [] });
    expect(world.writes()).toBe(0);
    expect(q.deadLetters).toHaveLength(1);
  });
});

const gcpSource: GcpBillingSource = {
  tenant: 'acme',
  jobProject: 'billing-proj',
  table: 'billing-proj.billing.gcp_billing_export_v1_01A2B3_C4D5E6_F7A8B9',
  location: 'US',
  secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:gcp-AbCdEf',
  prefix: 'acme/gcp',
  exportName: 'gcp-billing',
};
const gcpEnv = { ...baseEnv, [GCP_ACQUISITION_ENV.sources]: JSON.stringify([gcpSource]) };
const cells = (...values: BigQueryRow['f'][number]['v'][]): BigQueryRow => ({
  f: values.map((v) => ({ v })),
});
const PROBE = [cells('2024-09-20', '202409', '2024-09-20T08:00:00.000000Z')];
const USAGE = cells(
  '01A2B3-C4D5E6-F7A8B9',
  'acme-web-prod',
  'Compute Engine',
  'SKU-1',
  'sku 1',
  'us-central1',
  '2024-09-02T01:00:00.000000Z',
  '2024-09-02T02:00:00.000000Z',
  'regular',
  'USD',
  '1.123456',
  [],
  '1.0',
  'hour',
);

/** One table's BigQuery, bucket and cursor; the first page is throttled for `throttleMs`. */
const gcpWorld = (clock: { ms: number }, throttleMs: number) => {
  let watermarks: Watermarks = {};
  const months = new Map<string, MonthCursor>();
  const files = new Map<string, string>();
  let throttled = false;
  const counts = { pages: 0, puts: 0 };
  const ports = {
    bigquery: {
      queryAll: async () => ({ rows: PROBE, bytesBilled: 10 }),
      insertJob: async () => undefined,
      page: async () => {
        if (!throttled) {
          throttled = true;
          throw new ThrottledError(clock.ms + throttleMs);
        }
        counts.pages++;
        return { rows: [USAGE], bytesBilled: 10 };
      },
    },
    bucket: {
      readText: async (key: string) => files.get(key),
      putText: async (key: string, text: string) => {
        counts.puts++;
        files.set(key, text);
      },
    },
    cursor: {
      readWatermarks: async () => watermarks,
      writeWatermarks: async (marks: Watermarks) => void (watermarks = marks),
      readMonth: async (period: string) => months.get(period),
      writeMonth: async (cursor: MonthCursor) => void months.set(cursor.period, cursor),
    },
  };
  return { ports, files, counts };
};

describe('a GCP acquisition throttled by BigQuery', () => {
  it('does not wait: the step is delayed to notBefore (900 s at most, then again), runs there, and once more writes nothing', async () => {
    const clock = { ms: Date.parse('2024-10-03T06:00:00.000Z') };
    const world = gcpWorld(clock, 901_000);
    const q = queues(() => clock.ms);
    const handler = createGcpAcquisitionHandler(
      gcpEnv,
      async () => world.ports,
      createTelemetry(gcpEnv),
      q.seams,
    );
    const scheduled = await handler({ tenant: 'acme' }, minutes(15));
    expect(scheduled.passes[0].throttledUntil).toBe(clock.ms + 901_000);
    const step: AcquisitionStep = {
      v: 1,
      tenant: 'acme',
      sourceId: gcpSource.table,
      reason: 'throttle',
      notBefore: '2024-10-03T06:15:01.000Z',
    };
    expect(q.sent.splice(0)).toEqual([{ step, delaySeconds: 900 }]);

    clock.ms += 900_000; // SQS delivers after its 900 s: one second early.
    expect(await handler(stepEvent(step), minutes(15))).toEqual({ batchItemFailures: [] });
    expect(q.sent.splice(0)).toEqual([{ step, delaySeconds: 1 }]);
    expect(world.counts).toEqual({ pages: 0, puts: 0 });

    clock.ms += 1_000;
    expect(await handler(stepEvent(step), minutes(15))).toEqual({ batchItemFailures: [] });
    expect(q.sent).toEqual([]);
    expect(world.counts).toEqual({ pages: 1, puts: 2 });
    const files = [...world.files].sort(([a], [b]) => a.localeCompare(b));
    expect(files.map(([key]) => key.replace(/billing_dedup_[^/]+/, '<job>'))).toEqual([
      'acme/gcp/gcp-billing/data/BILLING_PERIOD=2024-09/<job>/page-000000.csv',
      'acme/gcp/gcp-billing/metadata/BILLING_PERIOD=2024-09/<job>/gcp-billing-Manifest.json',
    ]);

    // Redelivered (or a second step for the table): the month is acquired, nothing is written.
    expect(await handler(stepEvent(step, 2), minutes(15))).toEqual({ batchItemFailures: [] });
    expect(world.counts).toEqual({ pages: 1, puts: 2 });
    expect([...world.files].sort(([a], [b]) => a.localeCompare(b))).toEqual(files);
  });
});
