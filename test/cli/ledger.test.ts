import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { costEvent } from '../support/cost-events';
import { sqsEvent, sqsRecord } from '../support/sqs-events';
import { costLedgerHandlerOn } from '../support/ledger-harness';
import { csvOf, deliver, exportStore, hourLine } from '../support/export-pipeline';
import { recordProvisionalDrift } from '../../lambda/core/exports/provisional-drift-pass';
import { cli } from './helpers';

let dynamo: DynamoDBClient;
let tables: LedgerTables;
const ACCOUNT = '400000000001';

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  const handler = costLedgerHandlerOn(dynamo, tables);
  const events = [
    costEvent({ accountId: ACCOUNT, eventId: 'a', amount: '0.1' }),
    costEvent({ accountId: ACCOUNT, eventId: 'b', amount: 0.2 }),
    costEvent({ accountId: ACCOUNT, lineItemId: 'li-1', version: 1, amount: '10' }),
    costEvent({ accountId: ACCOUNT, eventId: 'c', amount: '4.608', currency: 'EUR' }),
    costEvent({ accountId: '400000000002', eventId: 'd', amount: '99.99' }),
  ];
  for (const event of events)
    expect((await handler(sqsEvent([sqsRecord(event)]))).batchItemFailures).toEqual([]);
  const restated = costEvent({
    accountId: ACCOUNT,
    lineItemId: 'li-1',
    version: 2,
    amount: '12.50',
  });
  expect((await handler(sqsEvent([sqsRecord(restated)]))).batchItemFailures).toEqual([]);
});

afterAll(() => dynamo.destroy());

const deps = () => ({ clients: { dynamo } });

describe('ledger', () => {
  it('prints exact totals per currency and the charges behind them', async () => {
    const result = await cli(
      [
        'ledger',
        '--table',
        tables.ledgerTable,
        '--tenant',
        'ACME',
        '--account',
        ACCOUNT,
        '--period',
        '2026-11',
      ],
      deps(),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `Ledger statement: tenant acme, account ${ACCOUNT}, period 2026-11`,
    );
    expect(result.stdout).toMatch(/^EUR\s+4\.608\s+1\s+open$/m);
    expect(result.stdout).toMatch(/^USD\s+12\.8\s+3\s+open$/m); // 0.1 + 0.2 + 12.50 (restated from 10), no float noise
    expect(result.stdout).toContain('Charges (4):');
    expect(result.stdout).toMatch(/line-item:li-1\s+2\s+12\.5\s+USD/);
    expect(result.stdout).toContain('Check: the charges add up to every total (2 currencies).');
  });

  it('counts one of two exports of the same account and lists the other as shadowed', async () => {
    const store = exportStore(dynamo, tables.ledgerTable);
    const exportOf = (exportName: string, executionId: string, amount: string, hour: number) =>
      deliver(store, {
        tenant: 'dual',
        prefix: 'dual',
        exportName,
        executionId,
        eventTime: `2026-11-02T0${hour}:00:00.000Z`,
        sequencer: '0055AED6DCD90281E5',
        files: { 'part-0.csv': csvOf([hourLine(amount, ACCOUNT, 'EC2', 0)]) },
      });
    await exportOf('focus', 'f-1', '25797.74', 6);
    await exportOf('second', 's-1', '16045.09', 7);
    const result = await cli(
      [
        'ledger',
        '--table',
        tables.ledgerTable,
        '--tenant',
        'dual',
        '--account',
        ACCOUNT,
        '--period',
        '2026-11',
      ],
      deps(),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^USD\s+25797\.74\s+1\s+open$/m);
    expect(result.stdout).toContain(
      '  USD 16045.09 (1 charge) from exports/dual/second execution s-1; exports/dual/focus counts instead',
    );
  });

  it('lists the stream charges an export of their provider supersedes apart from the totals', async () => {
    const handler = costLedgerHandlerOn(dynamo, tables);
    for (const event of [
      costEvent({ tenant: 'both', accountId: ACCOUNT, eventId: 'p-1', amount: '30' }),
      costEvent({ tenant: 'both', accountId: ACCOUNT, eventId: 'p-2', amount: '12.5' }),
    ])
      expect((await handler(sqsEvent([sqsRecord(event)]))).batchItemFailures).toEqual([]);
    const store = exportStore(dynamo, tables.ledgerTable);
    const { planned, reports } = await deliver(
      store,
      {
        tenant: 'both',
        prefix: 'both',
        executionId: 'b-1',
        eventTime: '2026-11-02T06:00:00.000Z',
        sequencer: '0055AED6DCD90281E6',
        files: { 'part-0.csv': csvOf([hourLine('41.75', ACCOUNT, 'EC2', 0)]) },
      },
      { supersedes: 'aws' },
    );
    const args = ['ledger', '--table', tables.ledgerTable, '--tenant', 'both'];
    const statement = await cli([...args, '--account', ACCOUNT, '--period', '2026-11'], deps());
    expect(statement.code).toBe(0);
    expect(statement.stdout).toMatch(/^USD\s+41\.75\s+1\s+open$/m);
    expect(statement.stdout).toContain(
      '  USD 42.5 (2 charges) of source aws; the export exports/both/focus counts instead',
    );
    const listing = await cli(args, deps());
    expect(listing.stdout).toContain(
      `  ${ACCOUNT} 2026-11: USD 42.5 (2 charges) of source aws; the export exports/both/focus counts instead`,
    );

    // The chunk worker's drift pass of that switch: the statement shows what the stream said.
    const switched = reports.at(-1)?.switched;
    if (switched?.outcome !== 'current') throw new Error('the export did not switch');
    await recordProvisionalDrift(
      {
        store,
        notifier: { notifyOnce: () => Promise.resolve('notified') },
        threshold: { ratio: '0.01', floor: '1' },
        concurrency: 1,
      },
      planned.ref,
      { switchedAt: switched.switchedAt, provider: 'aws' },
    );
    const withDrift = await cli([...args, '--account', ACCOUNT, '--period', '2026-11'], deps());
    expect(withDrift.stdout).toContain(
      `  ${switched.switchedAt} exports/both/focus b-1: USD stream 42.5 (2 charges of aws), export 41.75, difference 0.75 (1.7964 %)\n`,
    );
  });

  it('--json gives machines the same exact strings', async () => {
    const result = await cli(
      [
        'ledger',
        '--table',
        tables.ledgerTable,
        '--tenant',
        'acme',
        '--account',
        ACCOUNT,
        '--period',
        '2026-11',
        '--json',
      ],
      deps(),
    );
    const statement = JSON.parse(result.stdout);
    expect(statement.partitionKey).toBe(`TENANT#acme#ACCOUNT#${ACCOUNT}#PERIOD#2026-11`);
    expect(
      statement.totals.map((t: { currency: string; total: string }) => [t.currency, t.total]),
    ).toEqual([
      ['EUR', '4.608'],
      ['USD', '12.8'],
    ]);
    expect(statement.charges).toHaveLength(4);
    expect(statement.checks.every((c: { consistent: boolean }) => c.consistent)).toBe(true);
  });

  it('without --account/--period lists the matching totals', async () => {
    const result = await cli(
      ['ledger', '--table', tables.ledgerTable, '--tenant', 'acme', '--period', '2026-11'],
      deps(),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/acme\s+400000000002\s+2026-11\s+USD\s+99\.99\s+1/);
    expect(result.stdout).toMatch(
      new RegExp(`acme\\s+${ACCOUNT}\\s+2026-11\\s+USD\\s+12\\.8\\s+3`),
    );
  });

  it('an empty statement and a bad period', async () => {
    const empty = await cli(
      ['ledger', '--table', tables.ledgerTable, '--account', ACCOUNT, '--period', '2026-10'],
      deps(),
    );
    expect(empty.stdout).toContain('No charges booked');
    const bad = await cli(
      ['ledger', '--table', tables.ledgerTable, '--account', ACCOUNT, '--period', '2026-13'],
      deps(),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('billing-dedup: --period must be yyyy-mm (got "2026-13")\n');
  });

  it('--tenant is normalized as the consumer normalizes tenants (trimmed, lower-cased)', async () => {
    const statement = await cli(
      [
        'ledger',
        '--table',
        tables.ledgerTable,
        '--tenant',
        ' ACME ',
        '--account',
        ACCOUNT,
        '--period',
        '2026-11',
      ],
      deps(),
    );
    expect(statement.code).toBe(0);
    expect(statement.stdout).toContain(`Ledger statement: tenant acme, account ${ACCOUNT}`);
    expect(statement.stdout).toMatch(/^USD\s+12\.8\s+3\s+open$/m);
    const listing = await cli(
      ['ledger', '--table', tables.ledgerTable, '--tenant', ' Acme', '--period', '2026-11'],
      deps(),
    );
    expect(listing.code).toBe(0);
    expect(listing.stdout).toMatch(/acme\s+400000000002\s+2026-11\s+USD\s+99\.99\s+1/);
  });

  it('a --tenant the consumer could never book is a usage error naming the flag', async () => {
    for (const tenant of ['ac me', 'acmé', '']) {
      const result = await cli(
        ['ledger', '--table', tables.ledgerTable, '--tenant', tenant, '--period', '2026-11'],
        deps(),
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^billing-dedup: --tenant(: ".*" is not a slug| must not be blank)/,
      );
      expect(result.stdout).toBe('');
    }
  });

  it('a total its charges do not explain fails the check (exit 1)', async () => {
    await dynamo.send(
      new PutItemCommand({
        TableName: tables.ledgerTable,
        Item: {
          pk: { S: 'TENANT#acme#ACCOUNT#400000000009#PERIOD#2026-11' },
          sk: { S: 'TOTAL#GBP' },
          total: { N: '5' },
          charges: { N: '1' },
          currency: { S: 'GBP' },
        },
      }),
    );
    const result = await cli(
      [
        'ledger',
        '--table',
        tables.ledgerTable,
        '--tenant',
        'acme',
        '--account',
        '400000000009',
        '--period',
        '2026-11',
      ],
      deps(),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('CHECK FAILED for GBP: 0 charges sum to 0 but the total is 5');
  });

  it('a missing table names the flag', async () => {
    const result = await cli(
      ['ledger', '--table', 'no-such-table', '--account', ACCOUNT, '--period', '2026-11'],
      deps(),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^billing-dedup: Ledger table not found .*--table/);
  });
});
