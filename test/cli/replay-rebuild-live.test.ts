/**
 * The ledger rebuilt from the archive of a live history equals it: a closed period whose late charges
 * and late restatement roll forward, a line item restated back to its first content (v1 10, v2 20,
 * v3 10: v3 has v1's content hash) and a charge its tenant's topic delivered without naming the tenant.
 * The last two are what made the local run's rebuild differ by 2.75 (10 − 7.25). On the same history,
 * `ledger --evidence` shows each charge's archived messages and what happened to each copy.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { tenantTopicArn, type TenantBindings } from '../../contract/tenant-bindings';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { readAllTotals } from '../../lambda/adapters/ledger-reader';
import { rebuildFromArchive } from '../../local/report/archive-rebuild';
import type { LedgerTables } from '../support/aws-local';
import { startArchivingLedger, type ArchivingLedger } from '../support/archiving-ledger';
import { costEvent } from '../support/cost-events';
import { sqsEvent, sqsRecord } from '../support/sqs-events';
import { cli } from './helpers';

const BUCKET = 'rebuild-live-archive';
const ACCOUNT = '200000000011';
const bindings: TenantBindings = {
  topicArnPattern: 'arn:aws:sns:us-east-1:123456789012:billing-dedup-test-cost-events-{tenant}',
  trustedTopicArn: 'arn:aws:sns:us-east-1:123456789012:billing-dedup-test-cost-events',
  tenants: { acme: {} },
};

let live: ArchivingLedger;
let s3: ArchivingLedger['s3'];
let dynamo: DynamoDBClient;
let tables: LedgerTables;

/** What SQS holds when `topicArn` delivers `message` to a queue subscribed without raw delivery. */
const delivered = (topicArn: string, message: unknown) =>
  sqsRecord(
    JSON.stringify({
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: topicArn,
      Message: JSON.stringify(message),
      MessageAttributes: {},
    }),
  );
const trusted = (message: unknown) => delivered(bindings.trustedTopicArn as string, message);
const onTenantTopic = (message: Record<string, unknown>) => {
  const { tenant: _bound, ...rest } = message;
  return delivered(tenantTopicArn(bindings, 'acme'), rest);
};
const october = (input: Parameters<typeof costEvent>[0]) =>
  costEvent({ accountId: ACCOUNT, chargePeriodStart: '2026-10-20T10:00:00Z', ...input });
const november = (input: Parameters<typeof costEvent>[0]) =>
  costEvent({ accountId: ACCOUNT, chargePeriodStart: '2026-11-07T10:00:00Z', ...input });
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

const streamTotals = async (table: string) =>
  (await readAllTotals(dynamo, table))
    .map(({ accountId, period, currency, total, charges }) => ({
      accountId,
      period,
      currency,
      total,
      charges,
    }))
    .sort((a, b) => a.period.localeCompare(b.period));

beforeAll(async () => {
  live = await startArchivingLedger(BUCKET, {
    deliveryMode: 'envelope',
    tenantBindings: JSON.stringify(bindings),
    lateChargePolicy: 'roll-forward',
  });
  ({ s3, dynamo, tables } = live);
  const { handler } = live;
  const deliver = async (...records: ReturnType<typeof sqsRecord>[]) => {
    expect((await handler(sqsEvent(records))).batchItemFailures).toEqual([]);
    await tick();
  };
  await deliver(
    trusted(october({ eventId: 'oct-before', amount: '5' })),
    trusted(october({ lineItemId: 'oct-li', version: 1, amount: '3' })),
  );
  await new DynamoPeriods({ client: dynamo, ledgerTable: tables.ledgerTable }).close(
    { tenant: 'acme', accountId: ACCOUNT, period: '2026-10' },
    'test',
    'October invoiced',
  );
  await tick();
  // After the close: rolled forward into November as corrections of October.
  await deliver(
    trusted(october({ eventId: 'oct-late', amount: '2' })),
    trusted(october({ lineItemId: 'oct-li', version: 2, amount: '4.5' })),
  );
  await deliver(trusted(october({ eventId: 'oct-before', amount: '5' }))); // a late duplicate
  // A line item restated back to its first content, one version per batch, in order.
  await deliver(trusted(november({ lineItemId: 'li-back', version: 1, amount: '10' })));
  await deliver(trusted(november({ lineItemId: 'li-back', version: 2, amount: '20' })));
  const v3 = trusted(november({ lineItemId: 'li-back', version: 3, amount: '10' }));
  await deliver(v3);
  // v3 redelivered (a duplicate copy of the same message) beside a producer's retry of v2 (superseded).
  await deliver(v3, trusted(november({ lineItemId: 'li-back', version: 2, amount: '20' })));
  await deliver(onTenantTopic(november({ eventId: 'bound', amount: '7.25' })));
});

afterAll(() => live.stop());

it('the live ledger: October closed at 8, November 10 + 7.25 + the rolled 2 + 1.5', async () => {
  expect(await streamTotals(tables.ledgerTable)).toEqual([
    { accountId: ACCOUNT, period: '2026-10', currency: 'USD', total: '8', charges: 2 },
    { accountId: ACCOUNT, period: '2026-11', currency: 'USD', total: '20.75', charges: 3 },
  ]);
});

it('the rebuild from the archive (the local run’s, one table for every archived period) equals it exactly', async () => {
  const rebuild = await rebuildFromArchive({
    s3: s3.client,
    dynamo,
    bucket: BUCKET,
    liveTable: tables.ledgerTable,
    policy: 'roll-forward',
  });
  expect(rebuild.differences).toEqual([]);
  expect(rebuild.equal).toBe(2);
  expect(await streamTotals(`${tables.ledgerTable}-rebuilt`)).toEqual(
    await streamTotals(tables.ledgerTable),
  );
});

describe('ledger --evidence', () => {
  const statement = (period: string, ...extra: string[]) =>
    cli(
      [
        'ledger',
        '--tenant',
        'acme',
        '--account',
        ACCOUNT,
        '--period',
        period,
        '--table',
        tables.ledgerTable,
        '--archive-bucket',
        BUCKET,
        '--evidence',
        ...extra,
      ],
      { clients: { dynamo, s3: s3.client } },
    );

  it('shows, for each charge, the archived messages behind it and the outcome of every copy', async () => {
    const result = await statement('2026-11', '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      charges: { sk: string; identityId: string }[];
      evidence: {
        archive: string;
        charges: {
          sk: string;
          messages: { version: number; copies: { outcome: string }[] }[];
        }[];
      };
    };
    expect(report.evidence.archive).toBe(`s3://${BUCKET}/cost-events/tenant=acme/period=2026-11/`);
    const of = (id: string) => {
      const sk = report.charges.find((charge) => charge.identityId === id)!.sk;
      return report.evidence.charges
        .find((charge) => charge.sk === sk)!
        .messages.map((message) => ({
          version: message.version,
          outcomes: message.copies.map((copy) => copy.outcome),
        }))
        .sort((a, b) => a.version - b.version || (a.outcomes[0] < b.outcomes[0] ? -1 : 1));
    };
    expect(of('li-back')).toEqual([
      { version: 1, outcomes: ['applied'] },
      { version: 2, outcomes: ['restated'] },
      { version: 2, outcomes: ['superseded'] },
      { version: 3, outcomes: ['restated', 'duplicate'] },
    ]);
    // Delivered by the tenant's topic without a tenant: found under the tenant it was bound to.
    expect(of('bound')).toEqual([{ version: 0, outcomes: ['applied'] }]);
  });

  it('a closed period: the late charge rolled forward and the late duplicate, as text', async () => {
    const result = await statement('2026-10');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Evidence (s3://rebuild-live-archive/cost-events/tenant=acme/period=2026-10/',
    );
    const text = result.stdout.slice(result.stdout.indexOf('Evidence'));
    const block = (head: string) => text.slice(text.indexOf(head)).split(/\n {2}(?! )/)[0];
    // The event booked before the close, and its late copy (another message, same content): a duplicate.
    expect(block('event:oct-before 5 USD')).toMatch(/message \S+ sent \S+: applied /);
    expect(block('event:oct-before 5 USD')).toMatch(/message \S+ sent \S+: duplicate /);
    // The late restatement, rolled forward into November.
    expect(block('line-item:oct-li v2 4.5 USD')).toMatch(/v1 message \S+ sent \S+: applied /);
    expect(block('line-item:oct-li v2 4.5 USD')).toMatch(/v2 message \S+ sent \S+: restated /);
    // In the order they were decided, though the simulator gave both one send time.
    expect(block('line-item:oct-li v2 4.5 USD')).toMatch(/v1 message [^\n]+\n\s+v2 message /);
    expect(block('event:oct-late 2 USD')).toMatch(/message \S+ sent \S+: applied /);
  });
});
