import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { rebuildFromArchive } from '../../local/report/archive-rebuild';
import { createLedgerTables, type LedgerTables } from '../support/aws-local';
import { startArchivingLedger, type ArchivingLedger } from '../support/archiving-ledger';
import { costEvent } from '../support/cost-events';
import { costLedgerHandlerOn } from '../support/ledger-harness';
import { sqsEvent, sqsRecord } from '../support/sqs-events';

const BUCKET = 'archive-rebuild';
let live: ArchivingLedger;
let s3: ArchivingLedger['s3'];
let dynamo: DynamoDBClient;
let tables: LedgerTables;

beforeAll(async () => {
  live = await startArchivingLedger(BUCKET);
  ({ s3, dynamo, tables } = live);
  const records = [
    sqsRecord(costEvent({ accountId: '600000000001', eventId: 'a', amount: '1.25' })),
    sqsRecord(
      costEvent({
        tenant: 'globex',
        accountId: '600000000002',
        eventId: 'b',
        amount: '2',
        chargePeriodStart: '2026-10-30T00:00:00Z',
      }),
    ),
  ];
  expect((await live.handler(sqsEvent(records))).batchItemFailures).toEqual([]);
});

afterAll(() => live.stop());

describe('the local run’s rebuild from the archive', () => {
  it('rebuilds every archived tenant-period into one fresh table: equal to the live ledger', async () => {
    const rebuild = await rebuildFromArchive({
      s3: s3.client,
      dynamo,
      bucket: BUCKET,
      liveTable: tables.ledgerTable,
      policy: 'roll-forward',
    });
    expect(rebuild).toEqual({ equal: 2, differences: [] });
  });

  it('names the totals that differ when the live ledger is not what the archive holds', async () => {
    const other = await createLedgerTables(dynamo);
    await costLedgerHandlerOn(
      dynamo,
      other,
    )(sqsEvent([sqsRecord(costEvent({ accountId: '600000000001', eventId: 'c', amount: '3' }))]));
    const rebuild = await rebuildFromArchive({
      s3: s3.client,
      dynamo,
      bucket: BUCKET,
      liveTable: other.ledgerTable,
      policy: 'roll-forward',
    });
    expect(rebuild.equal).toBe(0);
    expect(
      rebuild.differences.map(
        (d) => `${d.tenant}/${d.accountId}/${d.period} ${d.live.total}→${d.rebuilt.total}`,
      ),
    ).toEqual(['acme/600000000001/2026-11 3→1.25', 'globex/600000000002/2026-10 0→2']);
  });
});
