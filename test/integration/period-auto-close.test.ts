import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { consumerEnvironment } from '../../contract/environment';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { PERIOD_SK, ledgerKey, ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import { createAutoCloseHandler } from '../../lambda/handlers/period-auto-close';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { costEvent } from '../support/cost-events';
import { csvOf, deliver, exportStore, hourLine } from '../support/export-pipeline';
import { sqsEvent, sqsRecord } from '../support/sqs-events';
import { costLedgerHandlerOn } from '../support/ledger-harness';

let dynamo: DynamoDBClient;
let tables: LedgerTables;
let periods: DynamoPeriods;
const NOW = Date.parse('2026-12-03T03:15:00Z');
const plenty = { getRemainingTimeInMillis: () => 600_000 };

const autoClose = (afterDays: number, ledgerTable = tables.ledgerTable) =>
  createAutoCloseHandler(
    {
      ...consumerEnvironment({
        ledgerTableName: ledgerTable,
        autoCloseAfterDays: afterDays,
        logLevel: 'SILENT',
      }),
      AWS_LAMBDA_FUNCTION_NAME: 'billing-dedup-test-period-auto-close',
    },
    { dynamo, now: () => NOW },
  );

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  periods = new DynamoPeriods({ client: dynamo, ledgerTable: tables.ledgerTable, now: () => NOW });
  const handler = costLedgerHandlerOn(dynamo, tables);
  const charge = (tenant: string, accountId: string, start: string, eventId: string) =>
    costEvent({ tenant, accountId, eventId, amount: '2.5', chargePeriodStart: start });
  for (const event of [
    charge('acme', 'A', '2026-10-10T00:00:00Z', 'a-oct'),
    charge('acme', 'A', '2026-11-10T00:00:00Z', 'a-nov'),
    charge('globex', 'B', '2026-10-11T00:00:00Z', 'b-oct'),
    charge('acme', 'C', '2026-10-12T00:00:00Z', 'c-oct'),
    charge('acme', 'D', '2026-09-12T00:00:00Z', 'd-sep'),
  ])
    expect((await handler(sqsEvent([sqsRecord(event)]))).batchItemFailures).toEqual([]);
  // C was closed and reopened by an operator; D is closed already.
  const c = { tenant: 'acme', accountId: 'C', period: '2026-10' };
  await periods.close(c, 'alice', 'first invoice');
  await periods.reopen(c, 'alice', 'invoice reissued');
  await periods.close({ tenant: 'acme', accountId: 'D', period: '2026-09' }, 'alice', 'invoiced');
});

afterAll(() => dynamo.destroy());

describe('period auto-close (scheduled function) on DynamoDB Local', () => {
  it('with no time left it closes nothing and says how many it deferred', async () => {
    const summary = await autoClose(3)({}, { getRemainingTimeInMillis: () => 10_000 });
    expect(summary).toMatchObject({ closed: 0, deferred: 2, failed: [] });
    expect(await periods.stateOf({ tenant: 'acme', accountId: 'A', period: '2026-10' })).toBe(
      'open',
    );
  });

  it('closes every never-closed period that ended afterDays ago, and nothing else', async () => {
    const summary = await autoClose(3)({}, plenty);
    expect(summary).toMatchObject({
      latestDuePeriod: '2026-10',
      closed: 2,
      reopened: 1,
      alreadyClosed: 0,
      deferred: 0,
      failed: [],
    });
    const a = await periods.status({ tenant: 'acme', accountId: 'A', period: '2026-10' });
    expect(a).toMatchObject({
      state: 'closed',
      closedBy: 'auto-close:billing-dedup-test-period-auto-close',
      closeReason: 'auto-close: 3 day(s) after the period ended (2026-11-01T00:00:00.000Z)',
      totalsAtClose: [{ currency: 'USD', total: '2.5', charges: 1 }],
    });
    expect(await periods.stateOf({ tenant: 'globex', accountId: 'B', period: '2026-10' })).toBe(
      'closed',
    );
    // Ended 2026-12-01: due from 2026-12-04 with 3 days.
    expect(await periods.stateOf({ tenant: 'acme', accountId: 'A', period: '2026-11' })).toBe(
      'open',
    );
    // Reopened by an operator: left open.
    expect(
      await periods.status({ tenant: 'acme', accountId: 'C', period: '2026-10' }),
    ).toMatchObject({ state: 'open', closeCount: 1 });
  });

  it('runs again without effect (idempotent: EventBridge retries, the next day)', async () => {
    const summary = await autoClose(3)({}, plenty);
    expect(summary).toMatchObject({ closed: 0, reopened: 1, failed: [] });
    expect(
      (await periods.status({ tenant: 'acme', accountId: 'A', period: '2026-10' })).closeCount,
    ).toBe(1);
  });

  it('a shorter delay makes the just-ended month due too', async () => {
    const summary = await autoClose(2)({}, plenty);
    expect(summary).toMatchObject({ latestDuePeriod: '2026-11', closed: 1, failed: [] });
    expect(await periods.stateOf({ tenant: 'acme', accountId: 'A', period: '2026-11' })).toBe(
      'closed',
    );
  });
});

describe('auto-close of account-periods with export data only', () => {
  const tenant = 'initech';
  const [E, F] = ['600000000001', '600000000002'];
  let sequencer = 0;
  const exportOf = (executionId: string, lines: string[]) => ({
    tenant,
    prefix: tenant,
    executionId,
    period: '2026-10',
    eventTime: '2026-11-02T06:00:00.000Z',
    sequencer: (sequencer += 1).toString(16).toUpperCase().padStart(18, '0'),
    files: { 'part-0.csv': csvOf(lines) },
  });
  const line = (amount: string, account: string, hour: number) =>
    hourLine(amount, account, 'EC2', hour, { period: '2026-10' });

  it('closes them like any other, pinning the execution current at close and its totals', async () => {
    const own = await createLedgerTables(dynamo);
    const store = exportStore(dynamo, own.ledgerTable);
    // Two executions of the month; the second restates E and is current. No stream charge at all.
    await deliver(store, exportOf('e1', [line('10', E, 0), line('3', F, 0)]));
    const second = await deliver(
      store,
      exportOf('e2', [line('12.5', E, 0), line('0.25', E, 1), line('3', F, 0)]),
    );
    const source = second.planned.ref.source;

    const summary = await autoClose(3, own.ledgerTable)({}, plenty);

    expect(summary).toMatchObject({ candidates: 2, closed: 2, failed: [] });
    const ownPeriods = new DynamoPeriods({
      client: dynamo,
      ledgerTable: own.ledgerTable,
      now: () => NOW,
    });
    const e = await ownPeriods.status({ tenant, accountId: E, period: '2026-10' });
    expect(e).toMatchObject({
      state: 'closed',
      closedBy: 'auto-close:billing-dedup-test-period-auto-close',
      totalsAtClose: [{ currency: 'USD', total: '12.75', charges: 2 }],
    });
    const { Item } = await dynamo.send(
      new GetItemCommand({
        TableName: own.ledgerTable,
        Key: ledgerKey(ledgerPartitionKeyOf(tenant, E, '2026-10'), PERIOD_SK),
        ConsistentRead: true,
      }),
    );
    expect(Item?.pinned).toEqual({ M: { [source]: { S: 'e2' } } });
    expect(
      (await ownPeriods.status({ tenant, accountId: F, period: '2026-10' })).totalsAtClose,
    ).toEqual([{ currency: 'USD', total: '3', charges: 1 }]);
  });
});
