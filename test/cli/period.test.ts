import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { costEvent } from '../support/cost-events';
import { sqsEvent, sqsRecord } from '../support/sqs-events';
import { costLedgerHandlerOn } from '../support/ledger-harness';
import { cli } from './helpers';

const OPERATOR = 'arn:aws:sts::123456789012:assumed-role/FinOps/alice';
const ACCOUNT = '500000000001';

let dynamo: DynamoDBClient;
let tables: LedgerTables;
let deliver: (event: Record<string, unknown>) => Promise<void>;
const sts = new STSClient({ region: 'us-east-1' });
const stsMock = mockClient(sts);

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  const handler = costLedgerHandlerOn(dynamo, tables);
  deliver = async (event) =>
    expect((await handler(sqsEvent([sqsRecord(event)]))).batchItemFailures).toEqual([]);
  for (const event of [
    costEvent({
      accountId: ACCOUNT,
      eventId: 'oct-a',
      amount: '10.25',
      chargePeriodStart: '2026-10-03T00:00:00Z',
    }),
    costEvent({
      accountId: ACCOUNT,
      eventId: 'oct-b',
      amount: '4.75',
      chargePeriodStart: '2026-10-09T00:00:00Z',
    }),
    costEvent({
      accountId: ACCOUNT,
      eventId: 'nov-a',
      amount: '1.5',
      chargePeriodStart: '2026-11-02T00:00:00Z',
    }),
    costEvent({
      accountId: ACCOUNT,
      eventId: 'nov-void',
      amount: '2',
      chargePeriodStart: '2026-11-05T00:00:00Z',
    }),
  ])
    await deliver(event);
});

beforeEach(() => {
  stsMock.reset();
  stsMock.on(GetCallerIdentityCommand).resolves({ Arn: OPERATOR });
});

afterAll(() => {
  dynamo.destroy();
  sts.destroy();
});

/** The CLI's clock: after every month the tests close (a month that has not ended is refused). */
const NOW = Date.parse('2026-12-15T09:00:00Z');
const deps = () => ({ clients: { dynamo, sts }, now: () => NOW });
const key = (period: string) => [
  '--table',
  tables.ledgerTable,
  '--tenant',
  'acme',
  '--account',
  ACCOUNT,
  '--period',
  period,
];
const json = async (argv: string[]) => {
  const result = await cli([...argv, '--json'], deps());
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout);
};

describe('period close | status | reopen, charge void', () => {
  it('close records the caller principal, the reason and the statement at close', async () => {
    const result = await cli(
      ['period', 'close', ...key('2026-10'), '--reason', 'October invoice issued'],
      deps(),
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Closed billing period 2026-10 of tenant acme');
    expect(result.stdout).toContain(`by ${OPERATOR}: October invoice issued`);
    expect(result.stdout).toContain('total at close: USD 15 (2 charges)');
    expect(stsMock.commandCalls(GetCallerIdentityCommand)).toHaveLength(1);
  });

  it('closing it again exits 1 with a clear message and changes nothing', async () => {
    const again = await cli(['period', 'close', ...key('2026-10')], deps());
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^billing-dedup: .*2026-10.* is already closed\n$/);
    const status = await json(['period', 'status', ...key('2026-10')]);
    expect(status.periods[0]).toMatchObject({
      closeCount: 1,
      closeReason: 'October invoice issued',
    });
  });

  it('a late charge rolls forward: status lists it as a correction booked after the period', async () => {
    await deliver(
      costEvent({
        accountId: ACCOUNT,
        eventId: 'oct-late',
        amount: '3.5',
        chargePeriodStart: '2026-10-30T00:00:00Z',
      }),
    );
    const status = await cli(
      ['period', 'status', '--table', tables.ledgerTable, '--tenant', 'acme', '--account', ACCOUNT],
      deps(),
    );
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('2 billing periods (1 closed, 1 open)');
    expect(status.stdout).toContain(`acme ${ACCOUNT} 2026-10: closed`);
    expect(status.stdout).toContain('total at close: USD 15 (2 charges)');
    expect(status.stdout).toContain('correction booked in 2026-11: USD 3.5 (1 charge)');
    const listed = await json([
      'period',
      'status',
      '--table',
      tables.ledgerTable,
      '--tenant',
      'acme',
    ]);
    const october = listed.periods.find((p: { period: string }) => p.period === '2026-10');
    expect(october).toMatchObject({
      state: 'closed',
      closedBy: OPERATOR,
      totalsAtClose: [{ currency: 'USD', total: '15', charges: 2 }],
      correctionsBookedLater: [{ bookedIn: '2026-11', currency: 'USD', total: '3.5', charges: 1 }],
    });
  });

  it('ledger shows the closed status, the correction in November, and both statements still check', async () => {
    const october = await cli(['ledger', ...key('2026-10')], deps());
    expect(october.code).toBe(0);
    expect(october.stdout).toMatch(
      /^Status: closed \S+ by arn:aws:sts::123456789012:assumed-role\/FinOps\/alice/m,
    );
    expect(october.stdout).toMatch(/^USD\s+15\s+2\s+closed\s*$/m);
    expect(october.stdout).toContain(
      'Corrections of this period booked in later periods (not in the totals above):',
    );
    expect(october.stdout).toContain('in 2026-11: USD 3.5 (1 charge)');
    expect(october.stdout).toMatch(/event:oct-late .*booked in 2026-11$/m);
    expect(october.stdout).toContain('Check: the charges add up to every total (1 currency).');
    const november = await cli(['ledger', ...key('2026-11')], deps());
    expect(november.code).toBe(0);
    expect(november.stdout).toMatch(/^USD\s+7\s+3\s+open\s+3\.5 of 2026-10$/m);
    expect(november.stdout).toContain('Check: the charges add up to every total (1 currency).');
    const listing = await cli(
      ['ledger', '--table', tables.ledgerTable, '--tenant', 'acme', '--account', ACCOUNT],
      deps(),
    );
    expect(listing.stdout).toMatch(
      new RegExp(`acme\\s+${ACCOUNT}\\s+2026-10\\s+USD\\s+15\\s+2\\s+closed`),
    );
    expect(listing.stdout).toMatch(
      new RegExp(`acme\\s+${ACCOUNT}\\s+2026-11\\s+USD\\s+7\\s+3\\s+open\\s+3\\.5 of 2026-10`),
    );
  });

  it('charge void in an open period: reverses it once, keeps it, and the check still holds', async () => {
    const voided = await json([
      'charge',
      'void',
      ...key('2026-11'),
      '--charge',
      'nov-void',
      '--reason',
      'duplicate invoice line',
      '--policy',
      'roll-forward',
    ]);
    expect(voided).toMatchObject({ outcome: 'voided', bookedIn: '2026-11', by: OPERATOR });
    const again = await json([
      'charge',
      'void',
      ...key('2026-11'),
      '--charge',
      'nov-void',
      '--reason',
      'again',
      '--policy',
      'roll-forward',
    ]);
    expect(again.outcome).toBe('already-voided');
    const statement = await json(['ledger', ...key('2026-11')]);
    expect(statement.totals).toMatchObject([{ currency: 'USD', total: '5', charges: 2 }]);
    expect(
      statement.charges.find((c: { identityId: string }) => c.identityId === 'nov-void').voidedAt,
    ).toBeDefined();
    expect(statement.checks.every((c: { consistent: boolean }) => c.consistent)).toBe(true);
  });

  it('charge void in a closed period follows the policy: reject refuses, roll-forward books it later', async () => {
    const refused = await cli(
      [
        'charge',
        'void',
        ...key('2026-10'),
        '--charge',
        'oct-b',
        '--reason',
        'credit note',
        '--policy',
        'reject',
      ],
      deps(),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/closed and the late-charge policy is reject/);
    const rolled = await json([
      'charge',
      'void',
      ...key('2026-10'),
      '--charge',
      'oct-b',
      '--reason',
      'credit note',
      '--policy',
      'roll-forward',
    ]);
    expect(rolled).toMatchObject({ outcome: 'voided', bookedIn: '2026-11' });
    const october = await json(['ledger', ...key('2026-10')]);
    expect(october.totals).toMatchObject([{ total: '15', charges: 2, status: 'closed' }]);
    expect(october.checks.every((c: { consistent: boolean }) => c.consistent)).toBe(true);
    const november = await json(['ledger', ...key('2026-11')]);
    expect(november.totals).toMatchObject([
      { total: '0.25', charges: 1, corrections: [{ of: '2026-10', total: '-1.25', charges: 0 }] },
    ]);
    expect(november.checks.every((c: { consistent: boolean }) => c.consistent)).toBe(true);
  });

  it('charge void without --policy and without a stack output is a usage error', async () => {
    const result = await cli(
      ['charge', 'void', ...key('2026-11'), '--charge', 'nov-a', '--reason', 'x'],
      deps(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pass --policy roll-forward|reject');
  });

  it('reopen needs a reason (exit 2); with one it reopens, audited, and later charges land in the period again', async () => {
    const bare = await cli(['period', 'reopen', ...key('2026-10')], deps());
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('period reopen needs --reason');
    const reopened = await json([
      'period',
      'reopen',
      ...key('2026-10'),
      '--reason',
      'invoice reissued',
    ]);
    expect(reopened).toMatchObject({
      state: 'open',
      reopenedBy: OPERATOR,
      reopenReason: 'invoice reissued',
      closeCount: 1,
    });
    const notClosed = await cli(
      ['period', 'reopen', ...key('2026-10'), '--reason', 'twice'],
      deps(),
    );
    expect(notClosed.code).toBe(1);
    expect(notClosed.stderr).toMatch(/is not closed/);
    await deliver(
      costEvent({
        accountId: ACCOUNT,
        eventId: 'oct-after-reopen',
        amount: '1',
        chargePeriodStart: '2026-10-31T00:00:00Z',
      }),
    );
    const october = await json(['ledger', ...key('2026-10')]);
    expect(october.totals).toMatchObject([{ total: '16', charges: 3, status: 'open' }]);
    expect(october.checks.every((c: { consistent: boolean }) => c.consistent)).toBe(true);
  });

  it('bad keys are usage errors naming the flag; an unknown charge exits 1', async () => {
    const badPeriod = await cli(['period', 'close', ...key('2026-13')], deps());
    expect(badPeriod).toMatchObject({
      code: 2,
      stderr: 'billing-dedup: --period must be yyyy-mm (got "2026-13")\n',
    });
    const unknown = await cli(
      [
        'charge',
        'void',
        ...key('2026-11'),
        '--charge',
        'no-such-charge',
        '--reason',
        'x',
        '--policy',
        'reject',
      ],
      deps(),
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No charge "no-such-charge"');
  });

  it('refuses a month that has not ended (exit 1, even with --force), naming when it ends', async () => {
    for (const period of ['2026-12', '2099-01']) {
      const early = await cli(['period', 'close', ...key(period), '--force'], deps());
      const end = period === '2026-12' ? '2027-01-01' : '2099-02-01';
      expect(early).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `billing-dedup: period ${period} of tenant acme, account ${ACCOUNT} has not ended: it ends at ${end}T00:00:00.000Z (UTC) and can be closed from then on\n`,
      });
    }
    expect(stsMock.commandCalls(GetCallerIdentityCommand)).toHaveLength(2);
    const status = await json(['period', 'status', ...key('2026-12')]);
    expect(status.periods).toMatchObject([{ state: 'open', closeCount: 0 }]);
  });

  it('refuses an account that never had data (exit 1) and says how to close it anyway; --force closes it', async () => {
    const empty = key('2026-10').map((arg) => (arg === ACCOUNT ? '599999999999' : arg));
    const refused = await cli(['period', 'close', ...empty], deps());
    expect(refused).toMatchObject({
      code: 1,
      stderr:
        'billing-dedup: period 2026-10 of tenant acme, account 599999999999 holds no data (no stream total, no export snapshot of any source): nothing to close. If the month must be final before any data arrives (later data then follows the late-charge policy), close it with --force\n',
    });
    expect((await json(['period', 'status', ...empty])).periods).toMatchObject([
      { state: 'open', closeCount: 0 },
    ]);

    const forced = await cli(
      ['period', 'close', ...empty, '--force', '--reason', 'account closed in September'],
      deps(),
    );
    expect(forced).toMatchObject({ code: 0, stderr: '' });
    expect(forced.stdout).toContain('total at close: nothing booked');
  });
});
