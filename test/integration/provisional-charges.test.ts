/**
 * Provisional stream charges on DynamoDB Local: once an export of a provider counts for an
 * account-period, the stream charges of that provider there are kept and listed, never added; other
 * sources stay added (core/ledger-total.ts).
 */
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { readPartitionCharges, readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import { ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import { processCostBatch } from '../../lambda/core/cost-processor';
import { addDecimals } from '../../lambda/core/decimal';
import {
  bookThroughCostPath,
  type LateCorrectionDeps,
} from '../../lambda/core/exports/late-correction-pass';
import { costEvent } from '../support/cost-events';
import { csvOf, deliver, hourLine, type ExportDelivery } from '../support/export-pipeline';
import { useExportLedger } from '../support/file-fixtures';
import { sqsRecord } from '../support/sqs-events';

const A = '200000000031';
const OCT = '2026-10';
const NOV = '2026-11';

const ledger = useExportLedger();

let tenants = 0;
const freshTenant = () => `provisional-${(tenants += 1)}`;

let sequencer = 0;
const delivery = (tenant: string, executionId: string, amounts: string[]): ExportDelivery => ({
  tenant,
  prefix: tenant,
  executionId,
  period: OCT,
  eventTime: '2026-11-02T06:00:00.000Z',
  sequencer: (sequencer += 1).toString(16).toUpperCase().padStart(18, '0'),
  files: {
    'part-0.csv': csvOf(
      amounts.map((amount, hour) => hourLine(amount, A, 'EC2', hour, { period: OCT })),
    ),
  },
});

const costLedger = () =>
  new DynamoLedger({ client: ledger.dynamo, ledgerTable: ledger.tables.ledgerTable });
const periods = () =>
  new DynamoPeriods({
    client: ledger.dynamo,
    ledgerTable: ledger.tables.ledgerTable,
    pause: () => new Promise((resolve) => setTimeout(resolve, 10)),
  });
const corrections = (): LateCorrectionDeps => ({
  store: ledger.store,
  book: bookThroughCostPath({
    concurrency: 2,
    ledger: costLedger(),
    lateChargePolicy: 'roll-forward',
    periods: periods(),
  }),
});

/** Stream charges of the cost consumer in October, one record each (`late`: as the handler, with periods). */
const streamCharges = async (
  tenant: string,
  source: string,
  charges: [string, string][],
  expected: string = 'applied',
) => {
  const outcome = await processCostBatch(
    charges.map(([id, amount]) =>
      sqsRecord(
        costEvent({
          tenant,
          source,
          accountId: A,
          eventId: id,
          amount,
          chargePeriodStart: `${OCT}-05T00:00:00Z`,
        }),
      ),
    ),
    {
      fifo: false,
      concurrency: 1,
      ledger: costLedger(),
      deadLetters: { send: async () => {} },
      lateChargePolicy: 'roll-forward',
      periods: periods(),
    },
  );
  expect(outcome.results.map((result) => result.outcome)).toEqual(charges.map(() => expected));
};

const statement = async (tenant: string, period = OCT) =>
  (
    await readPartitionTotals(
      ledger.dynamo,
      ledger.tables.ledgerTable,
      ledgerPartitionKeyOf(tenant, A, period),
    )
  ).map(({ currency, total, charges, provisional, corrections: booked }) => ({
    currency,
    total,
    charges,
    ...(provisional ? { provisional } : {}),
    ...(booked ? { corrections: booked } : {}),
  }));

const supersedingAws = { supersedes: 'aws' };

describe('provisional stream charges (DynamoDB Local)', () => {
  it('stream charges, then an export of the same provider and account-period: the total is the export', async () => {
    const tenant = freshTenant();
    await streamCharges(tenant, 'aws', [
      ['s-1', '7.00'],
      ['s-2', '3.00'],
    ]);
    expect(await statement(tenant)).toEqual([{ currency: 'USD', total: '10', charges: 2 }]);
    const { planned } = await deliver(
      ledger.store,
      delivery(tenant, 'e1', ['6.20', '4.20']),
      supersedingAws,
    );
    expect(await statement(tenant)).toEqual([
      {
        currency: 'USD',
        total: '10.4',
        charges: 2,
        provisional: [{ source: 'aws', total: '10', charges: 2, supersededBy: planned.ref.source }],
      },
    ]);
  });

  it('keeps stream charges of another source added', async () => {
    const tenant = freshTenant();
    await streamCharges(tenant, 'aws', [['s-1', '7.00']]);
    await streamCharges(tenant, 'metering', [['m-1', '2.50']]);
    await deliver(ledger.store, delivery(tenant, 'e1', ['10.40']), supersedingAws);
    expect(await statement(tenant)).toMatchObject([
      {
        currency: 'USD',
        total: '12.9',
        charges: 2,
        provisional: [{ source: 'aws', total: '7', charges: 1 }],
      },
    ]);
  });

  it('stores a late stream charge after the export as provisional: the total does not move', async () => {
    const tenant = freshTenant();
    await streamCharges(tenant, 'aws', [['s-1', '7.00']]);
    await deliver(ledger.store, delivery(tenant, 'e1', ['10.40']), supersedingAws);
    await streamCharges(tenant, 'aws', [['s-late', '4.00']]);
    expect(await statement(tenant)).toMatchObject([
      {
        currency: 'USD',
        total: '10.4',
        charges: 1,
        provisional: [{ source: 'aws', total: '11', charges: 2 }],
      },
    ]);
  });

  it('adds the stream charges of an additive provider (a switch that supersedes nothing)', async () => {
    const tenant = freshTenant();
    await streamCharges(tenant, 'aws', [['s-1', '7.00']]);
    await deliver(ledger.store, delivery(tenant, 'e1', ['10.40']));
    expect(await statement(tenant)).toEqual([{ currency: 'USD', total: '17.4', charges: 2 }]);
  });

  it('an export after a close rolls forward only its difference from the provisional stream total', async () => {
    const tenant = freshTenant();
    await streamCharges(tenant, 'aws', [
      ['s-1', '7.00'],
      ['s-2', '3.00'],
    ]);
    await streamCharges(tenant, 'metering', [['m-1', '1.00']]);
    const closed = await periods().close(
      { tenant, accountId: A, period: OCT },
      'tester',
      'invoiced',
    );
    expect(closed.totalsAtClose).toEqual([{ currency: 'USD', total: '11', charges: 3 }]);
    await deliver(ledger.store, delivery(tenant, 'e1', ['6.20', '4.20']), {
      ...supersedingAws,
      corrections: corrections(),
    });
    // October stays as closed; November books 10.40 − 10.00 (the stream's aws part), not 10.40.
    expect(await statement(tenant, OCT)).toEqual([{ currency: 'USD', total: '11', charges: 3 }]);
    expect(await statement(tenant, NOV)).toEqual([
      {
        currency: 'USD',
        total: '0.4',
        charges: 1,
        corrections: [{ of: OCT, total: '0.4', charges: 1 }],
      },
    ]);
    // A second export restates the correction against the same stream part.
    await deliver(ledger.store, delivery(tenant, 'e2', ['9.00']), {
      ...supersedingAws,
      corrections: corrections(),
    });
    const [oct] = await statement(tenant, OCT);
    const [nov] = await statement(tenant, NOV);
    expect(nov.total).toBe('-1');
    // Over both months: the export (9) + metering (1).
    expect(addDecimals(oct.total, nov.total)).toBe('10');
  });

  it('stores a late stream charge of a closed period whose export is pinned as provisional: no total moves, nothing rolls forward', async () => {
    const tenant = freshTenant();
    await streamCharges(tenant, 'aws', [['s-1', '7.00']]);
    await streamCharges(tenant, 'metering', [['m-1', '1.00']]);
    const { planned } = await deliver(
      ledger.store,
      delivery(tenant, 'e1', ['6.20', '4.20']),
      supersedingAws,
    );
    const closed = await periods().close(
      { tenant, accountId: A, period: OCT },
      'tester',
      'invoiced',
    );
    expect(closed.totalsAtClose).toEqual([{ currency: 'USD', total: '11.4', charges: 3 }]);

    await streamCharges(tenant, 'aws', [['s-late', '4.00']]);
    expect(await statement(tenant, OCT)).toEqual([
      {
        currency: 'USD',
        total: '11.4',
        charges: 3,
        provisional: [
          {
            source: 'aws',
            total: '11',
            charges: 2,
            supersededBy: planned.ref.source,
            late: { total: '4', charges: 1 },
          },
        ],
      },
    ]);
    expect(await statement(tenant, NOV)).toEqual([]);
    // Kept as evidence in its own period, where nothing can void it (it is in no total).
    const kept = (
      await readPartitionCharges(
        ledger.dynamo,
        ledger.tables.ledgerTable,
        ledgerPartitionKeyOf(tenant, A, OCT),
      )
    ).find((charge) => charge.identityId === 's-late');
    expect(kept).toMatchObject({ amount: '4', currency: 'USD' });
    expect(kept?.bookedIn).toBeUndefined();
    await expect(
      periods().voidCharge({
        tenant,
        accountId: A,
        period: OCT,
        chargeSk: kept!.sk,
        by: 'tester',
        reason: 'test',
        policy: 'roll-forward',
      }),
    ).rejects.toMatchObject({ code: 'provisional' });
    // A copy of it is a duplicate.
    await streamCharges(tenant, 'aws', [['s-late', '4.00']], 'duplicate');
    expect((await statement(tenant, OCT))[0]).toMatchObject({ total: '11.4', charges: 3 });

    // Another source's late charge is rolled forward and added, as before.
    await streamCharges(tenant, 'metering', [['m-late', '2.00']]);
    expect(await statement(tenant, OCT)).toMatchObject([{ total: '11.4', charges: 3 }]);
    expect(await statement(tenant, NOV)).toEqual([
      {
        currency: 'USD',
        total: '2',
        charges: 1,
        corrections: [{ of: OCT, total: '2', charges: 1 }],
      },
    ]);
  });

  it('an export after a close, then a late stream charge of its provider: provisional, the rolled-forward difference stays', async () => {
    const tenant = freshTenant();
    await streamCharges(tenant, 'aws', [
      ['s-1', '7.00'],
      ['s-2', '3.00'],
    ]);
    await streamCharges(tenant, 'metering', [['m-1', '1.00']]);
    await periods().close({ tenant, accountId: A, period: OCT }, 'tester', 'invoiced');
    const { planned } = await deliver(ledger.store, delivery(tenant, 'e1', ['6.20', '4.20']), {
      ...supersedingAws,
      corrections: corrections(),
    });
    expect(await statement(tenant, NOV)).toMatchObject([{ total: '0.4', charges: 1 }]);

    await streamCharges(tenant, 'aws', [['s-late', '4.00']]);
    // October keeps its closed total; the late charge is listed, superseded by the export.
    expect(await statement(tenant, OCT)).toEqual([
      {
        currency: 'USD',
        total: '11',
        charges: 3,
        provisional: [
          {
            source: 'aws',
            total: '4',
            charges: 1,
            supersededBy: planned.ref.source,
            late: { total: '4', charges: 1 },
          },
        ],
      },
    ]);
    expect(await statement(tenant, NOV)).toMatchObject([{ total: '0.4', charges: 1 }]);
    // The next export still corrects against what the closed statement counted (10 of aws).
    await deliver(ledger.store, delivery(tenant, 'e2', ['9.00']), {
      ...supersedingAws,
      corrections: corrections(),
    });
    const [oct] = await statement(tenant, OCT);
    const [nov] = await statement(tenant, NOV);
    expect(addDecimals(oct.total, nov.total)).toBe('10');
  });
});
