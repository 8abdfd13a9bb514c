/**
 * Export snapshots under closed periods, on DynamoDB Local: a closed account-period keeps the snapshot
 * pinned at close, and every later switch books `new − pinned` as a correction through the cost commit
 * path (late-charge policy included).
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { readPartitionCharges, readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import {
  CURRENT_SK,
  PERIOD_SK,
  ledgerKey,
  ledgerPartitionKeyOf,
} from '../../lambda/adapters/table-layout';
import { processCostBatch } from '../../lambda/core/cost-processor';
import { addDecimals } from '../../lambda/core/decimal';
import {
  bookThroughCostPath,
  type LateCorrectionDeps,
} from '../../lambda/core/exports/late-correction-pass';
import { processTaskBatch } from '../../lambda/core/exports/task-batch';
import { taskMessageBody } from '../../lambda/core/exports/task-message';
import type { LateChargePolicy, Rejection } from '../../lambda/core/ports';
import { costEvent } from '../support/cost-events';
import { useExportLedger } from '../support/file-fixtures';
import {
  csvOf,
  csvRowsOf,
  deliver,
  hourLine,
  runTask,
  planDelivery,
  type ExportDelivery,
  type PlannedDelivery,
} from '../support/export-pipeline';
import { sqsRecord } from '../support/sqs-events';

const A = '200000000021';
const B = '200000000022';
const OCT = '2026-10';
const NOV = '2026-11';

const ledger = useExportLedger();

let prefixes = 0;
/** Every test gets its own tenant (and export prefix), so its partitions start empty. */
const freshTenant = () => `periods-${(prefixes += 1)}`;

const line = (amount: string, account: string, hour: number, currency = 'USD') =>
  hourLine(amount, account, 'EC2', hour, { period: OCT, currency });

let sequencer = 0;
const delivery = (tenant: string, executionId: string, lines: string[]): ExportDelivery => ({
  tenant,
  prefix: tenant,
  executionId,
  period: OCT,
  // Later deliveries are newer: the order is the event time, then the sequencer.
  eventTime: '2026-11-02T06:00:00.000Z',
  sequencer: (sequencer += 1).toString(16).toUpperCase().padStart(18, '0'),
  files: { 'part-0.csv': csvOf(lines) },
});

const costLedger = () =>
  new DynamoLedger({
    client: ledger.dynamo,
    ledgerTable: ledger.tables.ledgerTable,
  });
const periods = () =>
  new DynamoPeriods({
    client: ledger.dynamo,
    ledgerTable: ledger.tables.ledgerTable,
    pause: () => new Promise((resolve) => setTimeout(resolve, Math.random() * 20)),
  });

const corrections = (policy: LateChargePolicy = 'roll-forward'): LateCorrectionDeps => ({
  store: ledger.store,
  book: bookThroughCostPath({
    concurrency: 4,
    ledger: costLedger(),
    lateChargePolicy: policy,
    periods: periods(),
  }),
});

const statement = async (tenant: string, account: string, period: string) =>
  (
    await readPartitionTotals(
      ledger.dynamo,
      ledger.tables.ledgerTable,
      ledgerPartitionKeyOf(tenant, account, period),
    )
  ).map(({ currency, total, charges, status, corrections: booked }) => ({
    currency,
    total,
    charges,
    status,
    ...(booked ? { corrections: booked } : {}),
  }));

const totalOf = async (tenant: string, account: string, period: string, currency = 'USD') =>
  (await statement(tenant, account, period)).find((row) => row.currency === currency)?.total ?? '0';

/** A stream charge of the cost consumer in `period`. */
const streamCharge = async (tenant: string, account: string, amount: string, id: string) => {
  const outcome = await processCostBatch(
    [
      sqsRecord(
        costEvent({
          tenant,
          accountId: account,
          eventId: id,
          amount,
          chargePeriodStart: `${OCT}-05T00:00:00Z`,
        }),
      ),
    ],
    { fifo: false, concurrency: 1, ledger: costLedger(), deadLetters: { send: async () => {} } },
  );
  expect(outcome.results[0].outcome).toBe('applied');
};

const close = (tenant: string, account: string) =>
  periods().close({ tenant, accountId: account, period: OCT }, 'tester', 'invoiced');

const pinOf = async (tenant: string, account: string): Promise<Record<string, string>> => {
  const { Item } = await ledger.dynamo.send(
    new GetItemCommand({
      TableName: ledger.tables.ledgerTable,
      Key: ledgerKey(ledgerPartitionKeyOf(tenant, account, OCT), PERIOD_SK),
      ConsistentRead: true,
    }),
  );
  return Object.fromEntries(Object.entries(Item?.pinned?.M ?? {}).map(([s, v]) => [s, v.S ?? '']));
};

/** The correction charges of an account's October, as stored in October's partition. */
const correctionCharges = async (tenant: string, account: string) =>
  (
    await readPartitionCharges(
      ledger.dynamo,
      ledger.tables.ledgerTable,
      ledgerPartitionKeyOf(tenant, account, OCT),
    )
  ).filter((charge) => charge.identityId.startsWith('export-correction:'));

/** Runs the last task of a delivery again (a redelivered chunk message after the switch). */
const redeliverLast = (planned: PlannedDelivery, deps: LateCorrectionDeps) =>
  runTask(ledger.store, planned, planned.plan.tasks[planned.plan.tasks.length - 1], {
    corrections: deps,
  });

/**
 * Closes (tenant, A) while `other` runs. Rounds lean one way, then the other, then start both at
 * random, so that every order gets exercised over the rounds.
 */
const closeRacing = async (round: number, tenant: string, other: () => Promise<unknown>) => {
  const after = <T>(ms: number, run: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      setTimeout(() => {
        run().then(resolve, reject);
      }, ms);
    });
  const [closeAt, otherAt] = [
    [0, 60],
    [300, 0],
    [Math.random() * 30, Math.random() * 30],
  ][round % 3];
  const [closed] = await Promise.all([
    after(closeAt, () => close(tenant, A)),
    after(otherAt, other),
  ]);
  return closed;
};

describe('export snapshots under closed periods (roll-forward)', () => {
  it('keeps the pinned snapshot in the closed period and books each later switch as a restated correction in the next open one', async () => {
    const tenant = freshTenant();
    const deps = corrections();
    await deliver(ledger.store, delivery(tenant, 'e1', [line('10.00', A, 0), line('5.00', A, 1)]), {
      corrections: deps,
    });
    await streamCharge(tenant, A, '7', 'stream-1');
    const atClose = await close(tenant, A);
    expect(atClose.totalsAtClose).toEqual([{ currency: 'USD', total: '22', charges: 3 }]);
    expect(await statement(tenant, A, OCT)).toEqual([
      { currency: 'USD', total: '22', charges: 3, status: 'closed' },
    ]);
    expect(Object.values(await pinOf(tenant, A))).toEqual(['e1']);

    const second = await deliver(ledger.store, delivery(tenant, 'e2', [line('20.00', A, 0)]), {
      corrections: deps,
    });
    expect(second.reports.at(-1)?.corrections).toMatchObject({
      booked: 1,
      unchanged: 0,
      rejected: [],
    });
    expect(await statement(tenant, A, OCT)).toEqual([
      { currency: 'USD', total: '22', charges: 3, status: 'closed' },
    ]);
    expect(await statement(tenant, A, NOV)).toEqual([
      {
        currency: 'USD',
        total: '5',
        charges: 1,
        status: 'open',
        corrections: [{ of: OCT, total: '5', charges: 1 }],
      },
    ]);

    const third = await deliver(ledger.store, delivery(tenant, 'e3', [line('12.00', A, 0)]), {
      corrections: deps,
    });
    expect(third.reports.at(-1)?.corrections).toMatchObject({ booked: 1 });
    expect(await totalOf(tenant, A, OCT)).toBe('22');
    expect(await statement(tenant, A, NOV)).toEqual([
      {
        currency: 'USD',
        total: '-3',
        charges: 1,
        status: 'open',
        corrections: [{ of: OCT, total: '-3', charges: 1 }],
      },
    ]);
    const [charge] = await correctionCharges(tenant, A);
    expect(charge).toMatchObject({
      amount: '-3',
      version: 3,
      chargeCategory: 'adjustment',
      chargeClass: 'correction',
    });

    // The chunk message that completed e3 is delivered again: nothing is booked twice.
    const again = await redeliverLast(third.planned, deps);
    expect(again.corrections).toMatchObject({ booked: 0, unchanged: 1, rejected: [] });
    expect(await totalOf(tenant, A, NOV)).toBe('-3');
    // Over all periods: the latest snapshot (12) + the stream charge (7).
    expect(addDecimals(await totalOf(tenant, A, OCT), await totalOf(tenant, A, NOV))).toBe('19');
    const current = await ledger.store.readCurrent(tenant, third.planned.ref.source, OCT);
    expect(current).toMatchObject({ executionId: 'e3', sequence: 3, correctedSequence: 3 });
  });

  it('corrects an account the new snapshot dropped, and a currency it added, against the pin', async () => {
    const tenant = freshTenant();
    const deps = corrections();
    await deliver(ledger.store, delivery(tenant, 'e1', [line('4', A, 0), line('6', B, 0)]), {
      corrections: deps,
    });
    await close(tenant, A);
    await close(tenant, B);
    await deliver(ledger.store, delivery(tenant, 'e2', [line('4', A, 0), line('2', A, 1, 'EUR')]), {
      corrections: deps,
    });
    expect(await totalOf(tenant, B, OCT)).toBe('6');
    expect(await totalOf(tenant, B, NOV)).toBe('-6');
    expect(await statement(tenant, A, NOV)).toEqual([
      {
        currency: 'EUR',
        total: '2',
        charges: 1,
        status: 'open',
        corrections: [{ of: OCT, total: '2', charges: 1 }],
      },
    ]);
  });

  it('finishes the pass of a switch whose worker stopped before the next switch moves on', async () => {
    const tenant = freshTenant();
    const deps = corrections();
    await deliver(ledger.store, delivery(tenant, 'e0', [line('5', A, 0), line('1', B, 0)]), {
      corrections: deps,
    });
    await close(tenant, A);
    await deliver(ledger.store, delivery(tenant, 'e1', [line('8', A, 0), line('1', B, 0)]), {
      corrections: deps,
    });
    expect(await totalOf(tenant, A, NOV)).toBe('3');
    // e2 drops A, and its worker stops right after the switch (no correction pass).
    const stopped = await deliver(ledger.store, delivery(tenant, 'e2', [line('1', B, 0)]));
    const pointer = await ledger.store.readCurrent(tenant, stopped.planned.ref.source, OCT);
    expect(pointer).toMatchObject({ executionId: 'e2', sequence: 3, correctedSequence: 2 });
    // e3 does not have A either: only e2's pass (e1 ∪ e2) knows A must be corrected to −5.
    await deliver(ledger.store, delivery(tenant, 'e3', [line('2', B, 0)]), { corrections: deps });
    expect(await totalOf(tenant, A, OCT)).toBe('5');
    expect(await totalOf(tenant, A, NOV)).toBe('-5');
  });

  it('books nothing when the close pinned the execution whose pass runs after it', async () => {
    const tenant = freshTenant();
    const deps = corrections();
    await deliver(ledger.store, delivery(tenant, 'e1', [line('10', A, 0)]), { corrections: deps });
    const second = await deliver(ledger.store, delivery(tenant, 'e2', [line('11', A, 0)]));
    await close(tenant, A);
    expect(Object.values(await pinOf(tenant, A))).toEqual(['e2']);
    const rerun = await redeliverLast(second.planned, deps);
    expect(rerun.corrections).toMatchObject({ booked: 0, unchanged: 1, rejected: [] });
    expect(await correctionCharges(tenant, A)).toEqual([]);
    expect(await statement(tenant, A, NOV)).toEqual([]);
  });

  it('close racing a switch: either e1 is pinned and e2 − e1 is booked, or e2 is pinned and nothing is', async () => {
    const seen = new Set<string>();
    for (let round = 0; round < 12; round += 1) {
      const tenant = freshTenant();
      const deps = corrections();
      await deliver(ledger.store, delivery(tenant, 'e1', [line('10', A, 0)]), {
        corrections: deps,
      });
      await streamCharge(tenant, A, '1.5', `stream-${round}`);
      // e2's chunks are committed; the close races its switch and correction pass.
      const second = await deliver(ledger.store, delivery(tenant, 'e2', [line('13.25', A, 0)]), {
        noSwitch: true,
      });
      const closed = await closeRacing(round, tenant, () => redeliverLast(second.planned, deps));
      const pin = Object.values(await pinOf(tenant, A));
      seen.add(pin.join());
      const october = await totalOf(tenant, A, OCT);
      expect(closed.totalsAtClose).toEqual([{ currency: 'USD', total: october, charges: 2 }]);
      if (pin[0] === 'e1') {
        expect(october).toBe('11.5');
        expect(await totalOf(tenant, A, NOV)).toBe('3.25');
      } else {
        expect(pin).toEqual(['e2']);
        expect(october).toBe('14.75');
        expect(await statement(tenant, A, NOV)).toEqual([]);
        expect(await correctionCharges(tenant, A)).toEqual([]);
      }
      expect(addDecimals(october, await totalOf(tenant, A, NOV))).toBe('14.75');
    }
    // Both orders happened (the rounds are timed to make each likely).
    expect([...seen].sort()).toEqual(['e1', 'e2']);
  });
});

describe('a source with no snapshot of the account at close', () => {
  it('never changes the closed period: its first snapshot is booked in full as a correction, even across a reopen', async () => {
    const tenant = freshTenant();
    const deps = corrections();
    await streamCharge(tenant, A, '7', 'stream-1');
    const atClose = await close(tenant, A);
    expect(atClose.totalsAtClose).toEqual([{ currency: 'USD', total: '7', charges: 1 }]);
    expect(await pinOf(tenant, A)).toEqual({});

    const first = await deliver(
      ledger.store,
      delivery(tenant, 'e1', [line('10.00', A, 0), line('2.50', A, 1, 'EUR'), line('4', B, 0)]),
      { corrections: deps },
    );
    expect(first.reports.at(-1)?.corrections).toMatchObject({ booked: 2, rejected: [] });
    expect(await statement(tenant, A, OCT)).toEqual([
      { currency: 'USD', total: '7', charges: 1, status: 'closed' },
    ]);
    expect(await statement(tenant, A, NOV)).toEqual([
      {
        currency: 'EUR',
        total: '2.5',
        charges: 1,
        status: 'open',
        corrections: [{ of: OCT, total: '2.5', charges: 1 }],
      },
      {
        currency: 'USD',
        total: '10',
        charges: 1,
        status: 'open',
        corrections: [{ of: OCT, total: '10', charges: 1 }],
      },
    ]);
    // B's period was never closed: its snapshot counts where it belongs.
    expect(await totalOf(tenant, B, OCT)).toBe('4');

    // A reopen and a second close pin nothing new: the snapshot is already booked in November.
    const key = { tenant, accountId: A, period: OCT };
    await periods().reopen(key, 'tester', 'late invoice line');
    expect(await totalOf(tenant, A, OCT)).toBe('7');
    const again = await periods().close(key, 'tester', 'invoiced again');
    expect(again.totalsAtClose).toEqual([{ currency: 'USD', total: '7', charges: 1 }]);
    expect(await pinOf(tenant, A)).toEqual({});
    await deliver(ledger.store, delivery(tenant, 'e2', [line('12.00', A, 0)]), {
      corrections: deps,
    });
    expect(await totalOf(tenant, A, OCT)).toBe('7');
    expect(await totalOf(tenant, A, NOV)).toBe('12');
    expect(await totalOf(tenant, A, NOV, 'EUR')).toBe('0');
  });

  it('close racing the first switch of a source: either the snapshot is pinned or it is booked in full', async () => {
    const seen = new Set<string>();
    for (let round = 0; round < 9; round += 1) {
      const tenant = freshTenant();
      const deps = corrections();
      await streamCharge(tenant, A, '1.5', `stream-${round}`);
      const first = await deliver(ledger.store, delivery(tenant, 'e1', [line('10', A, 0)]), {
        noSwitch: true,
      });
      const closed = await closeRacing(round, tenant, () => redeliverLast(first.planned, deps));
      const pin = Object.values(await pinOf(tenant, A));
      seen.add(pin.join() || 'none');
      const october = await totalOf(tenant, A, OCT);
      expect(closed.totalsAtClose).toEqual([
        { currency: 'USD', total: october, charges: pin.length === 0 ? 1 : 2 },
      ]);
      expect(october).toBe(pin.length === 0 ? '1.5' : '11.5');
      expect(await totalOf(tenant, A, NOV)).toBe(pin.length === 0 ? '10' : '0');
    }
    expect([...seen].sort()).toEqual(['e1', 'none']);
  });
});

describe('export snapshots under closed periods (reject)', () => {
  it('records the refused correction on the execution; after a reopen a re-run of the switch applies it', async () => {
    const tenant = freshTenant();
    const deps = corrections('reject');
    await deliver(ledger.store, delivery(tenant, 'e1', [line('10', A, 0)]), { corrections: deps });
    await close(tenant, A);
    const second = await deliver(ledger.store, delivery(tenant, 'e2', [line('12.5', A, 0)]), {
      corrections: deps,
    });
    const refused = {
      accountId: A,
      currency: 'USD',
      amount: '2.5',
      code: 'period-closed',
    };
    expect(second.reports.at(-1)?.corrections).toMatchObject({
      booked: 0,
      rejected: [expect.objectContaining(refused)],
    });
    expect((await ledger.store.readExecution(second.planned.ref))?.lateCorrections).toMatchObject({
      sequence: 2,
      rejected: [expect.objectContaining(refused)],
    });
    expect(await totalOf(tenant, A, OCT)).toBe('10');
    expect(await statement(tenant, A, NOV)).toEqual([]);

    // A redelivery while still closed changes nothing.
    await redeliverLast(second.planned, deps);
    expect(await statement(tenant, A, NOV)).toEqual([]);

    await periods().reopen({ tenant, accountId: A, period: OCT }, 'tester', 'late export');
    const rerun = await redeliverLast(second.planned, deps);
    expect(rerun.corrections).toMatchObject({ booked: 1, rejected: [] });
    // The pin stays after the reopen; the correction is booked in October itself, now open.
    expect(Object.values(await pinOf(tenant, A))).toEqual(['e1']);
    expect(await statement(tenant, A, OCT)).toEqual([
      { currency: 'USD', total: '12.5', charges: 2, status: 'open' },
    ]);
    expect((await ledger.store.readExecution(second.planned.ref))?.lateCorrections).toMatchObject({
      booked: 1,
      rejected: [],
    });
  });
});

describe('the chunk worker under reject', () => {
  it('dead-letters the task whose correction pass was refused; after a reopen its redrive books the correction', async () => {
    const tenant = freshTenant();
    const deps = corrections('reject');
    await deliver(ledger.store, delivery(tenant, 'e1', [line('10', A, 0)]), { corrections: deps });
    await close(tenant, A);
    const planned = await planDelivery(ledger.store, delivery(tenant, 'e2', [line('9', A, 0)]));
    const [task] = planned.plan.tasks;
    const rejections: Rejection[] = [];
    const runWorker = () =>
      processTaskBatch(
        [
          {
            messageId: 'task-0',
            body: taskMessageBody({ bucket: 'exports', ref: planned.ref, task }),
          },
        ],
        {
          concurrency: 1,
          bucket: 'exports',
          sources: [{ tenant, bucket: 'exports', prefix: tenant }],
          store: ledger.store,
          openRows: (_bucket, opened, fromRow) =>
            csvRowsOf(planned.texts.get(opened.objectKey) ?? '', fromRow)(),
          subChunkRows: 2,
          threshold: '1',
          notifier: { notifyOnce: () => Promise.resolve('notified') },
          deadLetters: {
            send: (_record, rejection) => {
              rejections.push(rejection);
              return Promise.resolve();
            },
          },
          defaultProvider: 'aws',
          corrections: deps,
        },
      );

    const first = await runWorker();
    expect(first.results[0]).toMatchObject({ outcome: 'rejected' });
    expect(rejections).toEqual([
      expect.objectContaining({ code: 'period-closed', field: 'lateCorrections' }),
    ]);
    expect(rejections[0].reason).toContain(`accounts ${A}`);
    // The switch happened; the closed period still shows e1 and no correction is booked.
    expect(await ledger.store.readCurrent(tenant, planned.ref.source, OCT)).toMatchObject({
      executionId: 'e2',
    });
    expect(await totalOf(tenant, A, OCT)).toBe('10');
    expect(await statement(tenant, A, NOV)).toEqual([]);

    await periods().reopen({ tenant, accountId: A, period: OCT }, 'tester', 'late export');
    const redriven = await runWorker();
    expect(redriven.batchItemFailures).toEqual([]);
    expect(redriven.results[0].outcome).not.toBe('rejected');
    expect(rejections).toHaveLength(1);
    expect(await totalOf(tenant, A, OCT)).toBe('9');
  });
});

describe('switch sequence', () => {
  it('counts switches on the CURRENT pointer', async () => {
    const tenant = freshTenant();
    const first = await deliver(ledger.store, delivery(tenant, 'e1', [line('1', A, 0)]));
    await deliver(ledger.store, delivery(tenant, 'e2', [line('2', A, 0)]));
    const { Item } = await ledger.dynamo.send(
      new GetItemCommand({
        TableName: ledger.tables.ledgerTable,
        Key: ledgerKey(`EXPORT#${tenant}#${first.planned.ref.source}#${OCT}`, CURRENT_SK),
        ConsistentRead: true,
      }),
    );
    expect(Item?.switchSeq).toEqual({ N: '2' });
  });
});

describe('two exports of the same accounts, closed', () => {
  const named = (tenant: string, exportName: string, executionId: string, lines: string[]) => ({
    ...delivery(tenant, executionId, lines),
    exportName,
  });

  it('the closed period counts the authoritative pin; only the authoritative export books corrections', async () => {
    const tenant = freshTenant();
    const deps = corrections();
    await deliver(ledger.store, named(tenant, 'focus', 'f1', [line('25797.74', A, 0)]), {
      corrections: deps,
    });
    await deliver(ledger.store, named(tenant, 'second', 's1', [line('16045.09', A, 0)]), {
      corrections: deps,
    });
    const atClose = await close(tenant, A);
    expect(atClose.totalsAtClose).toEqual([{ currency: 'USD', total: '25797.74', charges: 1 }]);
    expect(Object.values(await pinOf(tenant, A)).sort()).toEqual(['f1', 's1']);

    // The shadowed export changes after the close, now declared first: the close's choice stays, and
    // nothing is booked for it.
    const shadowed = await deliver(
      ledger.store,
      named(tenant, 'second', 's2', [line('16100.00', A, 0)]),
      { corrections: deps, precedence: 0 },
    );
    expect(await totalOf(tenant, A, OCT)).toBe('25797.74');
    expect(shadowed.reports.at(-1)?.switched).toMatchObject({ outcome: 'current' });
    expect(shadowed.reports.at(-1)?.corrections).toBeUndefined();
    expect(await statement(tenant, A, NOV)).toEqual([]);

    // The authoritative one changes: its difference is booked in the next open month.
    const authoritative = await deliver(
      ledger.store,
      named(tenant, 'focus', 'f2', [line('25800.00', A, 0)]),
      { corrections: deps },
    );
    expect(authoritative.reports.at(-1)?.corrections).toMatchObject({ booked: 1, rejected: [] });
    expect(await totalOf(tenant, A, OCT)).toBe('25797.74');
    expect(await totalOf(tenant, A, NOV)).toBe('2.26');
  });
});
