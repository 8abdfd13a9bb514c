import { PermanentError, ValidationError } from '../../../lambda/core/errors';
import { manifestFor, type DataFile } from '../../../lambda/core/exports/manifest';
import type { ExecutionPlan, FileFacts } from '../../../lambda/core/exports/plan';
import {
  planDelivery,
  type PlanDeliveryOptions,
  type RecordedPlan,
} from '../../../lambda/core/exports/plan-delivery';
import { processManifestBatch } from '../../../lambda/core/exports/manifest-batch';
import { objectsCreatedOf } from '../../../lambda/core/exports/s3-event';
import type { ExecutionRef } from '../../../lambda/core/exports/run-task';
import type { ExportTaskMessage } from '../../../lambda/core/exports/task-message';
import type { DeadLetterPort, Rejection, SqsRecordInput } from '../../../lambda/core/ports';

const COLUMNS = [
  'BilledCost',
  'BillingAccountId',
  'BillingCurrency',
  'BillingPeriodStart',
  'ChargeCategory',
  'ChargePeriodStart',
  'ChargePeriodEnd',
];

const built = manifestFor({
  bucket: 'exports',
  prefix: 'acme/focus',
  exportName: 'daily',
  billingPeriod: '2026-11',
  executionId: 'e-1',
  columns: COLUMNS,
  dataFileNames: ['a.csv', 'b.csv.gz', 'c.parquet'],
});
const { manifestKey } = built;
const created = {
  bucket: 'exports',
  key: manifestKey,
  eventTime: '2026-11-02T06:00:00.123Z',
  sequencer: '0055AED6DCD90281E5',
};

class FakeBucket {
  readonly texts = new Map<string, string>([[manifestKey, built.json]]);
  readonly facts = new Map<string, FileFacts>(
    built.dataFileKeys.map((key) => [
      key,
      key.endsWith('.parquet') ? { key, size: 30, rowGroups: [60, 60, 60] } : { key, size: 10 },
    ]),
  );
  reads = 0;

  readText(_bucket: string, key: string): Promise<string> {
    this.reads += 1;
    const text = this.texts.get(key);
    if (text === undefined) throw new Error(`no ${key}`);
    return Promise.resolve(text);
  }

  factsOf(file: DataFile): Promise<FileFacts | undefined> {
    return Promise.resolve(this.facts.get(file.key));
  }
}

class FakePlans {
  readonly plans = new Map<string, ExecutionPlan & { enqueued: boolean }>();

  recordPlan(plan: ExecutionPlan): Promise<'planned' | 'duplicate'> {
    if (this.plans.has(plan.executionId)) return Promise.resolve('duplicate');
    this.plans.set(plan.executionId, { ...plan, enqueued: false });
    return Promise.resolve('planned');
  }

  readPlan(ref: ExecutionRef): Promise<RecordedPlan | undefined> {
    const plan = this.plans.get(ref.executionId);
    return Promise.resolve(
      plan && { tasks: plan.tasks, enqueued: plan.enqueued, fingerprint: plan.fingerprint },
    );
  }

  markEnqueued(ref: ExecutionRef): Promise<void> {
    const plan = this.plans.get(ref.executionId);
    if (plan) plan.enqueued = true;
    return Promise.resolve();
  }
}

class FakeQueue {
  readonly sent: ExportTaskMessage[] = [];
  failNext = false;

  send(messages: readonly ExportTaskMessage[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('SQS unavailable'));
    }
    this.sent.push(...messages);
    return Promise.resolve();
  }
}

const setup = (sources = [{ tenant: 'acme', bucket: 'exports', prefix: 'acme' }]) => {
  const bucket = new FakeBucket();
  const plans = new FakePlans();
  const queue = new FakeQueue();
  const options: PlanDeliveryOptions = {
    sources,
    targetRowsPerTask: 100,
    objects: bucket,
    plans,
    queue,
  };
  return { bucket, plans, queue, options };
};

const rejectionOf = async (run: () => Promise<unknown>): Promise<ValidationError> => {
  try {
    await run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
};

describe('planDelivery', () => {
  it('records the plan bound to the source tenant and sends every task once', async () => {
    const { plans, queue, options } = setup();
    const result = await planDelivery(created, options);
    expect(result).toMatchObject({ outcome: 'planned', tasks: 4 });
    expect(result.ref).toEqual({
      tenant: 'acme',
      source: 'exports/acme/focus/daily',
      period: '2026-11',
      executionId: 'e-1',
    });
    expect(
      queue.sent.map((message) => [message.bucket, message.ref.tenant, message.task.index]),
    ).toEqual([
      ['exports', 'acme', 0],
      ['exports', 'acme', 1],
      ['exports', 'acme', 2],
      ['exports', 'acme', 3],
    ]);
    expect(plans.plans.get('e-1')?.enqueued).toBe(true);
  });

  it('a redelivered manifest whose plan is enqueued is a duplicate and sends nothing', async () => {
    const { queue, options } = setup();
    await planDelivery(created, options);
    const again = await planDelivery(created, options);
    expect(again.outcome).toBe('duplicate');
    expect(queue.sent).toHaveLength(4);
  });

  it('a crash between recording and enqueuing: the redelivered manifest re-sends every task', async () => {
    const { plans, queue, options } = setup();
    queue.failNext = true;
    await expect(planDelivery(created, options)).rejects.toThrow('SQS unavailable');
    expect(plans.plans.get('e-1')?.enqueued).toBe(false);
    expect(queue.sent).toHaveLength(0);

    const again = await planDelivery(created, options);
    expect(again.outcome).toBe('re-enqueued');
    expect(queue.sent.map((message) => message.task.index)).toEqual([0, 1, 2, 3]);
    expect(plans.plans.get('e-1')?.enqueued).toBe(true);
  });

  it('a delivery of the same executionId with an added data file is refused as execution-reused', async () => {
    const { bucket, plans, queue, options } = setup();
    await planDelivery(created, options);
    const grown = manifestFor({
      bucket: 'exports',
      prefix: 'acme/focus',
      exportName: 'daily',
      billingPeriod: '2026-11',
      executionId: 'e-1',
      columns: COLUMNS,
      dataFileNames: ['a.csv', 'b.csv.gz', 'c.parquet', 'd.csv'],
    });
    bucket.texts.set(manifestKey, grown.json);
    const added = grown.dataFileKeys[3];
    bucket.facts.set(added, { key: added, size: 10 });

    const error = await planDelivery(created, options).catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(PermanentError);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'execution-reused', field: 'executionId' });
    expect((error as PermanentError).reason).toMatch(/e-1 .* already planned with other content/);
    expect(plans.plans.get('e-1')?.tasks).toHaveLength(4);
    expect(queue.sent).toHaveLength(4);
  });

  it('a redelivery whose data file has another version since planning is refused as execution-reused', async () => {
    const { bucket, options } = setup();
    const [csv] = built.dataFileKeys;
    bucket.facts.set(csv, { key: csv, size: 10, pin: { versionId: 'v1', eTag: '"a"' } });
    await planDelivery(created, options);
    expect((await planDelivery(created, options)).outcome).toBe('duplicate');

    bucket.facts.set(csv, { key: csv, size: 10, pin: { versionId: 'v2', eTag: '"b"' } });
    await expect(planDelivery(created, options)).rejects.toMatchObject({
      code: 'execution-reused',
    });
  });

  it('rejects a manifest under no configured prefix, naming the config key', async () => {
    const { queue, options } = setup([{ tenant: 'other', bucket: 'exports', prefix: 'other' }]);
    const error = await rejectionOf(() => planDelivery(created, options));
    expect(error.field).toBe('exportSources');
    expect(error.reason).toContain(manifestKey);
    expect(queue.sent).toHaveLength(0);
  });

  it('with no sources configured, every manifest is rejected with a reason naming exportSources', async () => {
    const { options } = setup([]);
    const error = await rejectionOf(() => planDelivery(created, options));
    expect(error.reason).toMatch(/no export source is configured.*exportSources/);
  });

  it('rejects an invalid manifest with its reason and records nothing', async () => {
    const { bucket, plans, options } = setup();
    bucket.texts.set(manifestKey, JSON.stringify({ ...built.document, dataFiles: [] }));
    const error = await rejectionOf(() => planDelivery(created, options));
    expect(error.field).toBe('dataFiles');
    expect(plans.plans.size).toBe(0);
  });

  it('rejects a manifest listing a data file that is not in the bucket', async () => {
    const { bucket, options } = setup();
    bucket.facts.delete(built.dataFileKeys[0]);
    const error = await rejectionOf(() => planDelivery(created, options));
    expect(error.reason).toContain('is not in the bucket');
  });

  it('names the data file whose footer is unreadable', async () => {
    const { bucket, options } = setup();
    bucket.factsOf = () => {
      throw new ValidationError('malformed-body', '$', 'not a Parquet file');
    };
    const error = await rejectionOf(() => planDelivery(created, options));
    expect(error.field).toBe(built.dataFileKeys[0]);
  });
});

describe('processManifestBatch', () => {
  const record = (body: unknown, messageId = 'm-1'): SqsRecordInput => ({
    messageId,
    body: JSON.stringify(body),
  });
  const s3Event = (key: string) => ({
    Records: [
      {
        eventName: 'ObjectCreated:Put',
        eventTime: created.eventTime,
        s3: {
          bucket: { name: 'exports' },
          object: {
            key: encodeURIComponent(key).replace(/%2F/g, '/'),
            sequencer: created.sequencer,
          },
        },
      },
    ],
  });
  const deadLetters = () => {
    const sent: [string, Rejection][] = [];
    const port: DeadLetterPort = {
      send: (rec, rejection) => {
        sent.push([rec.messageId, rejection]);
        return Promise.resolve();
      },
    };
    return { sent, port };
  };

  it('dead-letters a manifest re-using a planned executionId for other content, with its code', async () => {
    const { bucket, options } = setup();
    const dlq = deadLetters();
    const batch = { ...options, concurrency: 1, deadLetters: dlq.port };
    await processManifestBatch([record(s3Event(manifestKey), 'first')], batch);
    bucket.facts.set(built.dataFileKeys[0], { key: built.dataFileKeys[0], size: 11 });

    const outcome = await processManifestBatch([record(s3Event(manifestKey), 'again')], batch);

    expect(outcome.results).toEqual([
      expect.objectContaining({
        messageId: 'again',
        outcome: 'rejected',
        code: 'execution-reused',
      }),
    ]);
    expect(outcome.batchItemFailures).toEqual([]);
    expect(dlq.sent).toEqual([
      ['again', expect.objectContaining({ code: 'execution-reused', field: 'executionId' })],
    ]);
  });

  it('acknowledges the S3 test event without planning anything', async () => {
    const { queue, options } = setup();
    const dlq = deadLetters();
    const outcome = await processManifestBatch(
      [record({ Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: 'exports' })],
      { ...options, concurrency: 2, deadLetters: dlq.port },
    );
    expect(outcome.results[0].outcome).toBe('observed');
    expect(outcome.batchItemFailures).toEqual([]);
    expect(queue.sent).toHaveLength(0);
  });

  it('plans a raw S3 notification and dead-letters a manifest of no tenant with its reason', async () => {
    const { queue, options, bucket } = setup();
    const stray = 'stranger/focus/daily/metadata/BILLING_PERIOD=2026-11/daily-Manifest.json';
    bucket.texts.set(stray, built.json);
    const dlq = deadLetters();
    const outcome = await processManifestBatch(
      [record(s3Event(manifestKey), 'ok'), record(s3Event(stray), 'stray')],
      { ...options, concurrency: 2, deadLetters: dlq.port },
    );
    expect(outcome.results.map((result) => result.outcome)).toEqual(['applied', 'rejected']);
    expect(dlq.sent).toEqual([['stray', expect.objectContaining({ field: 'exportSources' })]]);
    expect(queue.sent).toHaveLength(4);
  });

  it('decodes URL-encoded keys (+ is a space)', async () => {
    const spaced = manifestKey.replace('acme/focus', 'acme/focus exports');
    const { bucket, queue, options } = setup();
    const built2 = manifestFor({
      bucket: 'exports',
      prefix: 'acme/focus exports',
      exportName: 'daily',
      billingPeriod: '2026-11',
      executionId: 'e-2',
      columns: COLUMNS,
      dataFileNames: ['a.csv'],
    });
    bucket.texts.set(spaced, built2.json);
    for (const key of built2.dataFileKeys) bucket.facts.set(key, { key, size: 1 });
    const event = s3Event(spaced);
    event.Records[0].s3.object.key = spaced.replace(/ /g, '+');
    const outcome = await processManifestBatch([record(event)], {
      ...options,
      concurrency: 1,
      deadLetters: deadLetters().port,
    });
    expect(outcome.results[0].outcome).toBe('applied');
    expect(queue.sent[0].task.objectKey).toContain('acme/focus exports/');
  });
});

describe('objectsCreatedOf: the version the event reports', () => {
  it('keeps s3.object.versionId (versioned buckets), absent otherwise', () => {
    const event = (object: Record<string, unknown>) => ({
      Records: [
        {
          eventName: 'ObjectCreated:Put',
          eventTime: '2018-05-02T06:00:00.000Z',
          s3: {
            bucket: { name: 'exports' },
            object: { key: 'a/b-Manifest.json', sequencer: '0A', ...object },
          },
        },
      ],
    });
    expect(objectsCreatedOf(event({ versionId: 'v-3' }))[0].versionId).toBe('v-3');
    expect(objectsCreatedOf(event({}))[0]).not.toHaveProperty('versionId');
  });
});
