import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { exportPartitionKey } from '../../lambda/adapters/export-store';
import { readAllTotals, readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import { PeriodSources } from '../../lambda/adapters/period-sources';
import { shadowingAfterSwitch } from '../../lambda/core/exports/shadowing';
import { ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import { changeNotifications } from '../../lambda/core/exports/snapshot';
import { useExportLedger } from '../support/file-fixtures';
import {
  csvOf,
  deliver,
  hourLine,
  planDelivery,
  runTask,
  type ExportDelivery,
} from '../support/export-pipeline';

const ACCOUNT = '200000000013';
const OTHER_ACCOUNT = '200000000014';

const ledger = useExportLedger();

let prefixes = 0;
/** Every test gets its own tenant export prefix, so its export partitions start empty. */
const freshPrefix = () => `tenant-${(prefixes += 1)}`;

const statement = (tenant: string, account = ACCOUNT, period = '2026-11') =>
  readPartitionTotals(
    ledger.dynamo,
    ledger.tables.ledgerTable,
    ledgerPartitionKeyOf(tenant, account, period),
  );

const delivery = (
  prefix: string,
  executionId: string,
  eventTime: string,
  lines: string[],
  tenant = prefix,
): ExportDelivery => ({
  tenant,
  prefix,
  executionId,
  eventTime,
  sequencer: '0055AED6DCD90281E5',
  files: { 'part-0.csv': csvOf(lines) },
});

describe('period snapshots', () => {
  it('a re-export replaces the snapshot: 10.00 + 10.00 restated to 12.50 + 10.00 is 22.50 over 2 charges', async () => {
    const prefix = 'acme';
    const first = await deliver(
      ledger.store,
      delivery(prefix, 'e-1', '2026-11-02T06:00:00.000Z', [
        hourLine('10.00', ACCOUNT, 'EC2', 0),
        hourLine('10.00', ACCOUNT, 'EC2', 1),
      ]),
    );
    expect(first.reports.at(-1)?.switched).toMatchObject({ outcome: 'current' });
    expect(await statement('acme')).toEqual([
      {
        tenant: 'acme',
        accountId: ACCOUNT,
        period: '2026-11',
        currency: 'USD',
        total: '20',
        charges: 2,
        status: 'open',
      },
    ]);

    const second = await deliver(
      ledger.store,
      delivery(prefix, 'e-2', '2026-11-03T06:00:00.000Z', [
        hourLine('12.50', ACCOUNT, 'EC2', 0),
        hourLine('10.00', ACCOUNT, 'EC2', 1),
      ]),
    );

    expect(await statement('acme')).toEqual([
      {
        tenant: 'acme',
        accountId: ACCOUNT,
        period: '2026-11',
        currency: 'USD',
        total: '22.5',
        charges: 2,
        status: 'open',
      },
    ]);
    const switched = second.reports.at(-1)?.switched;
    if (switched?.outcome !== 'current')
      throw new Error(`not current: ${JSON.stringify(switched)}`);
    expect(switched.diff).toEqual({
      executionId: 'e-2',
      previousExecutionId: 'e-1',
      accounts: [
        {
          accountId: ACCOUNT,
          currency: 'USD',
          old: '20',
          new: '22.5',
          delta: '2.5',
          oldCharges: 2,
          newCharges: 2,
          services: [{ service: 'EC2', old: '20', new: '22.5', delta: '2.5' }],
        },
      ],
    });
    expect(
      changeNotifications(switched.diff, { tenant: 'acme', period: '2026-11', threshold: '1' }),
    ).toEqual([
      expect.objectContaining({
        text: `acme 2026-11, account ${ACCOUNT}: +2.50 USD since the previous export; EC2 +2.50`,
      }),
    ]);
    const { source, period } = second.planned.ref;
    expect(await ledger.store.readDiffs('acme', source, period)).toEqual([
      expect.objectContaining({
        executionId: 'e-1',
        accounts: [expect.objectContaining({ delta: '20' })],
      }),
      expect.objectContaining({ ...switched.diff, switchedAt: switched.switchedAt }),
    ]);
    expect(
      (await ledger.store.listExecutions('acme', source, period)).map((e) => [
        e.executionId,
        e.status,
      ]),
    ).toEqual([
      ['e-1', 'superseded'],
      ['e-2', 'current'],
    ]);
  });

  it('FOCUS open-period replacement (spec scenario 1): original 1500, replacement 1200 + 300 → 1500, not 3000', async () => {
    const fixture = (name: string) => {
      const [header, ...rows] = readFileSync(
        join(__dirname, '../fixtures/focus', `spec-open-period-scenario-1-${name}.csv`),
        'utf8',
      )
        .trim()
        .split('\n');
      // The spec's example leaves out the account and currency columns every export has.
      return [
        `BillingAccountId,BillingCurrency,${header}`,
        ...rows.map((row) => `${ACCOUNT},USD,${row}`),
      ].join('\n');
    };
    const prefix = freshPrefix();
    const spec = (executionId: string, eventTime: string, text: string): ExportDelivery => ({
      tenant: 'acme',
      prefix,
      executionId,
      period: '2025-07',
      eventTime,
      sequencer: '01',
      files: { 'part-0.csv': text },
    });
    await deliver(ledger.store, spec('original', '2025-07-04T00:00:00.000Z', fixture('original')));
    expect(await statement('acme', ACCOUNT, '2025-07')).toEqual([
      expect.objectContaining({ total: '1500', charges: 1 }),
    ]);
    await deliver(
      ledger.store,
      spec('replacement', '2025-07-05T00:00:00.000Z', fixture('replacement')),
    );
    expect(await statement('acme', ACCOUNT, '2025-07')).toEqual([
      expect.objectContaining({ currency: 'USD', total: '1500', charges: 2 }),
    ]);
  });

  it('statements add the stream total and the current snapshot of each source of the account', async () => {
    const tenant = 'rule';
    const pk = ledgerPartitionKeyOf(tenant, ACCOUNT, '2026-11');
    await ledger.dynamo.send(
      new PutItemCommand({
        TableName: ledger.tables.ledgerTable,
        Item: {
          pk: { S: pk },
          sk: { S: 'TOTAL#USD' },
          tenant: { S: tenant },
          accountId: { S: ACCOUNT },
          period: { S: '2026-11' },
          currency: { S: 'USD' },
          total: { N: '0.1' },
          charges: { N: '1' },
        },
      }),
    );
    await deliver(
      ledger.store,
      delivery(
        freshPrefix(),
        'a-1',
        '2026-11-02T06:00:00.000Z',
        [hourLine('0.2', ACCOUNT, 'S3', 0)],
        tenant,
      ),
    );
    await deliver(
      ledger.store,
      delivery(
        freshPrefix(),
        'b-1',
        '2026-11-02T06:00:00.000Z',
        [hourLine('0.0000000001', OTHER_ACCOUNT, 'S3', 0)],
        tenant,
      ),
    );
    const expected = [
      {
        tenant,
        accountId: ACCOUNT,
        period: '2026-11',
        currency: 'USD',
        total: '0.3',
        charges: 2,
        status: 'open',
      },
      {
        tenant,
        accountId: OTHER_ACCOUNT,
        period: '2026-11',
        currency: 'USD',
        total: '0.0000000001',
        charges: 1,
        status: 'open',
      },
    ];
    expect(await statement(tenant)).toEqual([expected[0]]);
    expect(
      (await readAllTotals(ledger.dynamo, ledger.tables.ledgerTable)).filter(
        (row) => row.tenant === tenant,
      ),
    ).toEqual(expected);
  });

  it('an older execution that completes after a newer one changes nothing', async () => {
    const tenant = freshPrefix();
    const prefix = tenant;
    const older = await planDelivery(
      ledger.store,
      delivery(prefix, 'old', '2026-11-02T06:00:00.000Z', [hourLine('7', ACCOUNT, 'EC2', 0)]),
    );
    await deliver(
      ledger.store,
      delivery(prefix, 'new', '2026-11-03T06:00:00.000Z', [hourLine('9', ACCOUNT, 'EC2', 0)]),
    );

    const report = await runTask(ledger.store, older, older.plan.tasks[0]);

    expect(report.switched).toEqual({ outcome: 'superseded', currentExecutionId: 'new' });
    expect(await statement(tenant)).toEqual([expect.objectContaining({ total: '9', charges: 1 })]);
    expect((await ledger.store.readExecution(older.ref))?.status).toBe('superseded');
    expect(await ledger.store.readCurrent(tenant, older.ref.source, '2026-11')).toMatchObject({
      executionId: 'new',
    });
  });

  it('two executions racing to become current: exactly one is current, and it is the newer', async () => {
    for (let round = 0; round < 12; round += 1) {
      const prefix = freshPrefix();
      const times = ['2026-11-02T06:00:00.000Z', '2026-11-02T06:00:00.000Z'];
      // Same event time: the sequencer decides. Even rounds plan the older first.
      const planned = [];
      for (const [index, sequencer] of (round % 2 === 0 ? ['0A', '0B'] : ['0B', '0A']).entries()) {
        planned.push(
          await planDelivery(ledger.store, {
            ...delivery(prefix, `x-${sequencer}`, times[index], [
              hourLine(sequencer === '0B' ? '2' : '1', ACCOUNT, 'EC2', 0),
            ]),
            sequencer,
          }),
        );
      }
      for (const each of planned) {
        for (const task of each.plan.tasks)
          await runTask(ledger.store, each, task, { noSwitch: true });
      }

      const outcomes = await Promise.all(
        planned.map((each) => ledger.store.switchIfNewer(each.ref)),
      );

      const newer = planned.find((each) => each.ref.executionId === 'x-0B')!;
      const older = planned.find((each) => each.ref.executionId === 'x-0A')!;
      expect(outcomes[planned.indexOf(newer)]).toMatchObject({ outcome: 'current' });
      // The older one either lost outright or was current for an instant and then replaced.
      expect(['current', 'superseded']).toContain(outcomes[planned.indexOf(older)].outcome);
      expect(await ledger.store.readCurrent(prefix, newer.ref.source, '2026-11')).toMatchObject({
        executionId: 'x-0B',
      });
      const statuses = (await ledger.store.listExecutions(prefix, newer.ref.source, '2026-11')).map(
        (e) => [e.executionId, e.status],
      );
      expect(statuses).toEqual([
        ['x-0A', 'superseded'],
        ['x-0B', 'current'],
      ]);
      expect(await statement(prefix)).toEqual([
        expect.objectContaining({ total: '2', charges: 1 }),
      ]);
    }
  });

  it("a file under tenant A's prefix whose rows name tenant B books everything to A, never to B", async () => {
    const header = `${csvOf([]).trim()},x_Tenant,tenant`;
    await deliver(ledger.store, {
      ...delivery(freshPrefix(), 'bound', '2026-11-02T06:00:00.000Z', [], 'initech'),
      files: { 'part-0.csv': csvOf([`${hourLine('5', ACCOUNT, 'EC2', 0)},globex,globex`], header) },
    });
    expect(await statement('initech')).toEqual([
      expect.objectContaining({ total: '5', charges: 1 }),
    ]);
    expect(await statement('globex')).toEqual([]);
    expect(
      (await readAllTotals(ledger.dynamo, ledger.tables.ledgerTable)).filter(
        (row) => row.tenant === 'globex',
      ),
    ).toEqual([]);
  });

  it('bad rows are counted per reason with their object key and row number, and never block the rest', async () => {
    const prefix = freshPrefix();
    const { planned } = await deliver(
      ledger.store,
      delivery(prefix, 'bad', '2026-11-02T06:00:00.000Z', [
        hourLine('1.5', ACCOUNT, 'EC2', 0),
        hourLine('abc', ACCOUNT, 'EC2', 1),
        hourLine('2.5', ACCOUNT, 'EC2', 2),
        hourLine('1', ACCOUNT, 'EC2', 3).replace('2026-11-01T00:00:00Z', '2026-10-01T00:00:00Z'),
        hourLine('3', ACCOUNT, 'S3', 4),
        hourLine('xyz', ACCOUNT, 'EC2', 5),
      ]),
      { subChunkRows: 4 },
    );
    expect(await statement(prefix)).toEqual([expect.objectContaining({ total: '7', charges: 3 })]);
    const execution = await ledger.store.readExecution(planned.ref);
    expect(execution).toMatchObject({ status: 'current', rows: 6, rejectedRows: 3 });
    const objectKey = planned.plan.tasks[0].objectKey;
    const rejections = await ledger.store.readRejections(planned.ref);
    expect(rejections.rejectedByReason).toEqual({
      'invalid-field:BilledCost': 2,
      'wrong-period:BillingPeriodStart': 1,
    });
    expect(rejections.samples.map(({ objectKey: key, row }) => [key, row])).toEqual([
      [objectKey, 2],
      [objectKey, 4],
      [objectKey, 6],
    ]);
  });
  it('an execution with an unreadable file fails and never becomes current: the previous snapshot stays', async () => {
    const tenant = freshPrefix();
    await deliver(
      ledger.store,
      delivery(tenant, 'good', '2026-11-02T06:00:00.000Z', [hourLine('4', ACCOUNT, 'EC2', 0)]),
    );
    const broken = {
      ...delivery(tenant, 'broken', '2026-11-03T06:00:00.000Z', []),
      files: {
        'part-0.csv': csvOf([hourLine('1', ACCOUNT, 'EC2', 0)]),
        // A header without BilledCost: one file-level error, not a rejection per row.
        'part-1.csv': csvOf(['200000000013,USD'], 'BillingAccountId,BillingCurrency'),
      },
    };

    const { planned, reports } = await deliver(ledger.store, broken);

    expect(reports[1].failed).toMatch(/part-1\.csv: .*BilledCost/);
    expect(await ledger.store.readExecution(planned.ref)).toMatchObject({
      status: 'failed',
      failure: reports[1].failed,
    });
    expect(await ledger.store.switchIfNewer(planned.ref)).toEqual({ outcome: 'incomplete' });
    expect(await ledger.store.readCurrent(tenant, planned.ref.source, '2026-11')).toMatchObject({
      executionId: 'good',
    });
    expect(await statement(tenant)).toEqual([expect.objectContaining({ total: '4', charges: 1 })]);
  });

  it('a chunk whose totals outgrow one item is split into parts and read back exactly', async () => {
    const tenant = freshPrefix();
    const service = 'S'.repeat(120);
    const accounts = Array.from({ length: 2500 }, (_, index) => String(300000000000 + index));
    const { planned } = await deliver(
      ledger.store,
      delivery(
        tenant,
        'wide',
        '2026-11-02T06:00:00.000Z',
        accounts.map((account) => hourLine('0.01', account, service, 0)),
      ),
      { subChunkRows: 5000 },
    );

    const parts = await ledger.dynamo.send(
      new QueryCommand({
        TableName: ledger.tables.ledgerTable,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :chunk)',
        ExpressionAttributeValues: {
          ':pk': { S: exportPartitionKey(tenant, planned.ref.source, '2026-11') },
          ':chunk': { S: 'EXEC#wide#CHUNK#' },
        },
        ProjectionExpression: 'sk',
      }),
    );
    expect(parts.Items?.map((item) => item.sk.S)).toEqual([
      'EXEC#wide#CHUNK#00000.000000000000',
      expect.stringMatching(/^EXEC#wide#CHUNK#00000\.000000000000#PART#[0-9a-f]{16}#00000$/),
      expect.stringMatching(/^EXEC#wide#CHUNK#00000\.000000000000#PART#[0-9a-f]{16}#00001$/),
    ]);
    const totals = await ledger.store.readSnapshotTotals(planned.ref);
    expect(Object.keys(totals)).toHaveLength(2500);
    expect(totals[accounts[2499]]).toEqual({
      USD: { total: '0.01', charges: 1, services: { [service]: '0.01' } },
    });
    expect(await statement(tenant, accounts[1234])).toEqual([
      expect.objectContaining({ total: '0.01', charges: 1 }),
    ]);
    expect(
      (await readAllTotals(ledger.dynamo, ledger.tables.ledgerTable)).filter(
        (row) => row.tenant === tenant,
      ),
    ).toHaveLength(2500);
  });
});

describe('two exports of the same accounts under one tenant', () => {
  const focusLines = [
    hourLine('25000.00', ACCOUNT, 'EC2', 0),
    hourLine('797.74', ACCOUNT, 'S3', 1),
  ];
  const secondLines = [
    hourLine('16045.09', ACCOUNT, 'EC2', 0),
    hourLine('5.00', OTHER_ACCOUNT, 'EC2', 0),
  ];
  const named = (
    prefix: string,
    exportName: string,
    executionId: string,
    eventTime: string,
    lines: string[],
  ): ExportDelivery => ({ ...delivery(prefix, executionId, eventTime, lines), exportName });
  const row = (tenant: string, accountId: string, total: string, charges: number) => ({
    tenant,
    accountId,
    period: '2026-11',
    currency: 'USD',
    total,
    charges,
    status: 'open',
  });

  it('the source current first counts, the other is shadowed: 25,797.74, not 41,842.83', async () => {
    const prefix = freshPrefix();
    const focus = await deliver(
      ledger.store,
      named(prefix, 'focus', 'f-1', '2026-11-02T06:00:00.000Z', focusLines),
    );
    const second = await deliver(
      ledger.store,
      named(prefix, 'second', 's-1', '2026-11-02T07:00:00.000Z', secondLines),
    );
    const shadowed = {
      source: second.planned.ref.source,
      executionId: 's-1',
      total: '16045.09',
      charges: 1,
      authoritative: focus.planned.ref.source,
    };
    expect(await statement(prefix)).toEqual([
      { ...row(prefix, ACCOUNT, '25797.74', 2), shadowed: [shadowed] },
    ]);
    // The switch of the shadowed export names the authoritative one (the chunk worker logs and counts it).
    const periodSources = new PeriodSources({
      client: ledger.dynamo,
      ledgerTable: ledger.tables.ledgerTable,
    });
    expect(await shadowingAfterSwitch(periodSources, focus.planned.ref)).toEqual({
      shadowedBy: [],
      shadows: [],
    });
    expect(await shadowingAfterSwitch(periodSources, second.planned.ref)).toEqual({
      shadowedBy: [focus.planned.ref.source],
      shadows: [],
    });
    expect(await shadowingAfterSwitch(periodSources, focus.planned.ref)).toEqual({
      shadowedBy: [],
      shadows: [second.planned.ref.source],
    });
    // An account only the second export covers counts from it.
    expect(await statement(prefix, OTHER_ACCOUNT)).toEqual([row(prefix, OTHER_ACCOUNT, '5', 1)]);
    expect(
      (await readAllTotals(ledger.dynamo, ledger.tables.ledgerTable)).filter(
        (total) => total.tenant === prefix,
      ),
    ).toEqual([
      { ...row(prefix, ACCOUNT, '25797.74', 2), shadowed: [shadowed] },
      row(prefix, OTHER_ACCOUNT, '5', 1),
    ]);

    // A later re-export of the first source switches after the second one and stays authoritative.
    await deliver(
      ledger.store,
      named(prefix, 'focus', 'f-2', '2026-11-03T06:00:00.000Z', [
        hourLine('25000.00', ACCOUNT, 'EC2', 0),
        hourLine('800.00', ACCOUNT, 'S3', 1),
      ]),
    );
    const pointer = await ledger.store.readCurrent(prefix, focus.planned.ref.source, '2026-11');
    expect(pointer).toMatchObject({
      executionId: 'f-2',
      firstSwitchedAt: expect.any(String) as string,
    });
    expect(pointer?.firstSwitchedAt).not.toEqual(pointer?.switchedAt);
    expect(await statement(prefix)).toEqual([
      {
        ...row(prefix, ACCOUNT, '25800', 2),
        shadowed: [{ ...shadowed, authoritative: focus.planned.ref.source }],
      },
    ]);
  });

  it('a declared precedence makes the later export authoritative', async () => {
    const prefix = freshPrefix();
    const focus = await deliver(
      ledger.store,
      named(prefix, 'focus', 'f-1', '2026-11-02T06:00:00.000Z', focusLines),
      { precedence: 1 },
    );
    const second = await deliver(
      ledger.store,
      named(prefix, 'second', 's-1', '2026-11-02T07:00:00.000Z', secondLines),
      { precedence: 0 },
    );
    expect(
      await ledger.store.readCurrent(prefix, second.planned.ref.source, '2026-11'),
    ).toMatchObject({ precedence: 0 });
    expect(await statement(prefix)).toEqual([
      {
        ...row(prefix, ACCOUNT, '16045.09', 1),
        shadowed: [
          {
            source: focus.planned.ref.source,
            executionId: 'f-1',
            total: '25797.74',
            charges: 2,
            authoritative: second.planned.ref.source,
          },
        ],
      },
    ]);
  });
});
