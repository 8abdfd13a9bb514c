import type { ChunkResult } from '../../../lambda/core/exports/chunk';
import type { ExportDiffMessage } from '../../../lambda/core/exports/diff-message';
import type { ExportTask } from '../../../lambda/core/exports/plan';
import type { ExportRow } from '../../../lambda/core/exports/rows';
import type {
  CommitOutcome,
  ExecutionRef,
  ExportStorePort,
  SwitchOutcome,
  TaskCursor,
} from '../../../lambda/core/exports/run-task';
import { processTaskBatch, type TaskBatchOptions } from '../../../lambda/core/exports/task-batch';
import { taskMessageBody } from '../../../lambda/core/exports/task-message';
import type { DeadLetterPort, Rejection } from '../../../lambda/core/ports';

const ref: ExecutionRef = {
  tenant: 'acme',
  source: 'exports/acme/focus/daily',
  period: '2026-11',
  executionId: 'e-2',
};
const objectKey = 'acme/focus/daily/data/BILLING_PERIOD=2026-11/e-2/a.csv';
const task: ExportTask = { index: 0, kind: 'csv-file', objectKey, format: 'csv' };

const rowOf = (rowIndex: number): ExportRow => ({
  rowIndex,
  cells: {
    BilledCost: '1.10',
    BillingAccountId: '200000000011',
    BillingCurrency: 'USD',
    BillingPeriodStart: '2026-11-01T00:00:00Z',
    ChargeCategory: 'Usage',
    ChargePeriodStart: '2026-11-01T00:00:00Z',
    ChargePeriodEnd: '2026-11-01T01:00:00Z',
    ServiceName: 'EC2',
  },
});

/** A store holding one CSV task's cursor; the commit that reaches `rows` completes the execution. */
class FakeStore implements ExportStorePort {
  committedRows = 0;
  done = false;
  readonly commits: [number, number][] = [];
  switches = 0;

  constructor(private readonly diff: SwitchOutcome) {}

  readCursor(): Promise<TaskCursor> {
    return Promise.resolve({ committedRows: this.committedRows, done: this.done });
  }

  commitChunk(_ref: ExecutionRef, result: ChunkResult): Promise<CommitOutcome> {
    if (result.fromRow !== this.committedRows) throw new Error('cursor elsewhere');
    this.commits.push([result.fromRow, result.toRow]);
    this.committedRows = result.toRow;
    this.done = result.last;
    return Promise.resolve({ outcome: 'committed', complete: result.last });
  }

  readonly precedences: (number | undefined)[] = [];
  readonly superseded: (string | undefined)[] = [];

  switchIfNewer(
    _ref: ExecutionRef,
    precedence?: number,
    supersedes?: string,
  ): Promise<SwitchOutcome> {
    this.switches += 1;
    this.precedences.push(precedence);
    this.superseded.push(supersedes);
    return Promise.resolve(this.diff);
  }

  markFailed(): Promise<void> {
    return Promise.resolve();
  }
}

const current: SwitchOutcome = {
  outcome: 'current',
  switchedAt: '2026-11-03T00:00:00.000Z',
  diff: {
    executionId: 'e-2',
    previousExecutionId: 'e-1',
    accounts: [
      {
        accountId: '200000000011',
        currency: 'USD',
        old: '10',
        new: '16.6',
        delta: '6.6',
        oldCharges: 1,
        newCharges: 6,
        services: [{ service: 'EC2', old: '10', new: '16.6', delta: '6.6' }],
      },
    ],
  },
};

const setup = (rows: number, budgetMs?: () => number) => {
  const store = new FakeStore(current);
  const published = new Map<string, ExportDiffMessage>();
  const rejected: Rejection[] = [];
  const deadLetters: DeadLetterPort = {
    send: (_record, rejection) => {
      rejected.push(rejection);
      return Promise.resolve();
    },
  };
  const options: TaskBatchOptions = {
    concurrency: 1,
    bucket: 'exports',
    sources: [{ tenant: 'acme', bucket: 'exports', prefix: 'acme' }],
    store,
    openRows: async function* (_bucket, _task, fromRow) {
      for (let index = fromRow; index < rows; index += 1) yield rowOf(index);
    },
    subChunkRows: 2,
    threshold: '1',
    notifier: {
      notifyOnce: (key, message) => {
        if (published.has(key)) return Promise.resolve('duplicate');
        published.set(key, message);
        return Promise.resolve('notified');
      },
    },
    deadLetters,
    defaultProvider: 'aws',
    ...(budgetMs ? { budget: { remainingMs: budgetMs }, reserveMs: 1_000 } : {}),
  };
  return { store, published, rejected, options };
};

const message = (overrides: Partial<{ tenant: string; bucket: string }> = {}) => ({
  messageId: 'task-0',
  body: taskMessageBody({
    bucket: overrides.bucket ?? 'exports',
    ref: { ...ref, tenant: overrides.tenant ?? ref.tenant },
    task,
  }),
});

describe('processTaskBatch', () => {
  it('commits every sub-chunk, switches and notifies the change once with kind, tenant and account', async () => {
    const { store, published, options } = setup(5);
    const outcome = await processTaskBatch([message()], options);
    expect(outcome.results[0].outcome).toBe('applied');
    expect(store.commits).toEqual([
      [0, 2],
      [2, 4],
      [4, 5],
    ]);
    const [notification] = [...published.values()];
    expect(notification.attributes).toEqual({
      kind: 'export-diff',
      tenant: 'acme',
      account: '200000000011',
    });
    expect(notification.body).toContain('+6.60 USD since the previous export; EC2 +6.60');
    expect(notification.body).not.toContain('Shadowed');
    expect(notification.subject).toBe('Billing export changed: acme 2026-11 200000000011 USD');
  });

  it('switches with the precedence the config declares for the export (none when undeclared)', async () => {
    const declared = setup(5, () => 1_000_000);
    declared.options.sources = [
      { tenant: 'acme', bucket: 'exports', prefix: 'acme', precedence: ['legacy', 'focus/daily'] },
    ];
    await processTaskBatch([message()], declared.options);
    const undeclared = setup(5);
    await processTaskBatch([message()], undeclared.options);
    expect([...declared.store.precedences, ...undeclared.store.precedences]).toEqual([
      1,
      undefined,
    ]);
  });

  it("switches superseding the source's provider's stream charges, unless config lists it additive", async () => {
    const byDefault = setup(5);
    await processTaskBatch([message()], byDefault.options);
    const gcp = setup(5);
    gcp.options.sources = [{ tenant: 'acme', bucket: 'exports', prefix: 'acme', source: 'gcp' }];
    await processTaskBatch([message()], gcp.options);
    const additive = setup(5);
    additive.options.additiveSources = ['aws'];
    await processTaskBatch([message()], additive.options);
    expect([
      ...byDefault.store.superseded,
      ...gcp.store.superseded,
      ...additive.store.superseded,
    ]).toEqual(['aws', 'gcp', undefined]);
  });

  it('a switch of a source another export of the period outranks names that export in its result and notification', async () => {
    const { options, published } = setup(5);
    const registered: string[] = [];
    options.periodSources = {
      register: (_tenant, _period, source) => {
        registered.push(source);
        return Promise.resolve();
      },
      ranks: () =>
        Promise.resolve([
          { source: 'exports/acme/cur', firstSwitchedAt: '2026-11-01T00:00:00.000Z' },
          { source: ref.source, firstSwitchedAt: '2026-11-03T00:00:00.000Z' },
        ]),
    };
    const outcome = await processTaskBatch([message()], options);
    expect(registered).toEqual([ref.source]);
    expect([...published.values()][0].body).toContain(
      'Shadowed: export source exports/acme/cur ranks above this one for the period. Where it also covers this account, the ledger counts it and this change is not in the total.',
    );
    expect(outcome.results[0]).toMatchObject({
      outcome: 'applied',
      shadowedBy: 'exports/acme/cur',
      reason: expect.stringContaining(
        'shadowed by exports/acme/cur on the accounts both cover',
      ) as string,
    });
  });

  it('a redelivered, finished task gets the stored diff again and does not notify twice', async () => {
    const { published, options } = setup(5);
    await processTaskBatch([message()], options);
    const again = await processTaskBatch([message()], options);
    expect(again.results[0].outcome).toBe('duplicate');
    expect(published.size).toBe(1);
  });

  it('stops between sub-chunks when time runs short and the redelivery resumes at the cursor', async () => {
    let remaining = 30_000;
    // Each sub-chunk takes 8 s: after the first commit 14 s remain, under 1 s + 2 × 8 s.
    const { store, options } = setup(5, () => {
      remaining -= 8_000;
      return remaining;
    });
    const first = await processTaskBatch([message()], options);
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'task-0' }]);
    expect(first.results[0].reason).toMatch(/time budget.*resumes at row/);
    const stoppedAt = store.committedRows;
    expect(stoppedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeLessThan(5);

    remaining = 1_000_000;
    const second = await processTaskBatch([message()], options);
    expect(second.batchItemFailures).toEqual([]);
    // Every row committed exactly once, in contiguous ranges.
    const covered = store.commits.flatMap(([from, to]) =>
      Array.from({ length: to - from }, (_, i) => from + i),
    );
    expect(covered).toEqual([0, 1, 2, 3, 4]);
  });

  it('dead-letters a task whose tenant is not the one the sources give its object', async () => {
    const { store, rejected, options } = setup(5);
    const outcome = await processTaskBatch([message({ tenant: 'globex' })], options);
    expect(outcome.results[0].outcome).toBe('rejected');
    expect(rejected[0].field).toBe('ref.tenant');
    expect(store.commits).toEqual([]);
  });

  it('dead-letters a task of another bucket', async () => {
    const { rejected, options } = setup(5);
    await processTaskBatch([message({ bucket: 'elsewhere' })], options);
    expect(rejected[0].field).toBe('bucket');
  });

  it('dead-letters a body that is not a task message', async () => {
    const { rejected, options } = setup(5);
    await processTaskBatch([{ messageId: 'x', body: 'hello' }], options);
    expect(rejected[0].code).toBe('malformed-body');
  });
});
