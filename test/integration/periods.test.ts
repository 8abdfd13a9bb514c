import {
  GetItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import Big from 'big.js';
import fc from 'fast-check';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { PERIOD_AUDIT_PREFIX } from '../../lambda/adapters/table-layout';
import { readAllTotals, readPartitionCharges } from '../../lambda/adapters/ledger-reader';
import { PeriodError } from '../../lambda/core/errors';
import type { PeriodKey } from '../../lambda/core/ports';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { acmePartition } from '../support/ledger-checks';
import { inPeriod, ledgerHarness, statementOf, sum } from '../support/ledger-harness';

let dynamo: DynamoDBClient;
let tables: LedgerTables;

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
});

afterAll(() => dynamo.destroy());

let accountNumber = 0;
/** A fresh account per test: tests share the tables. */
const newAccount = () => `3000000${String(++accountNumber).padStart(5, '0')}`;
const key = (accountId: string, period: string): PeriodKey => ({
  tenant: 'acme',
  accountId,
  period,
});
const OCT = '2026-10';
const NOV = '2026-11';
const DEC = '2026-12';

/** The ledger client of a closer that stops right after its first transaction (phase 1 of a close). */
const stopsAfterFreezing = (client: DynamoDBClient): DynamoDBClient => {
  let transactions = 0;
  return new Proxy(client, {
    get: (target, name, receiver) =>
      name === 'send'
        ? (command: object) =>
            command instanceof TransactWriteItemsCommand && ++transactions === 2
              ? Promise.reject(new Error('closer stopped'))
              : target.send(command as never)
        : Reflect.get(target, name, receiver),
  });
};

/** The audit records of an `acme` account-period, oldest first. */
const auditRecords = (account: string, period: string) =>
  dynamo.send(
    new QueryCommand({
      TableName: tables.ledgerTable,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
      ExpressionAttributeValues: {
        ':pk': { S: acmePartition(account, period) },
        ':audit': { S: PERIOD_AUDIT_PREFIX },
      },
    }),
  );

const outcomes = (batch: { results: { outcome: string }[] }) =>
  batch.results.map((result) => result.outcome);

describe('closing and reopening a billing period', () => {
  it('close records the statement, who, when and why; a closed period cannot be closed again', async () => {
    const account = newAccount();
    const { deliver, periods } = ledgerHarness(dynamo, tables);
    await deliver([
      { accountId: account, eventId: 'a', amount: '0.1', chargePeriodStart: inPeriod(OCT) },
      { accountId: account, eventId: 'b', amount: '0.2', chargePeriodStart: inPeriod(OCT) },
      {
        accountId: account,
        eventId: 'c',
        amount: '7',
        currency: 'EUR',
        chargePeriodStart: inPeriod(OCT),
      },
    ]);

    const closed = await periods.close(key(account, OCT), 'arn:aws:iam::1:user/ops', 'invoiced');

    expect(closed).toMatchObject({
      state: 'closed',
      closedBy: 'arn:aws:iam::1:user/ops',
      closeReason: 'invoiced',
      closeCount: 1,
      totalsAtClose: [
        { currency: 'EUR', total: '7', charges: 1 },
        { currency: 'USD', total: '0.3', charges: 2 },
      ],
    });
    expect(await periods.status(key(account, OCT))).toMatchObject({
      state: 'closed',
      totalsAtClose: closed.totalsAtClose,
      correctionsBookedLater: [],
    });
    expect(await statementOf(dynamo, tables, account, OCT)).toMatchObject({ status: 'closed' });
    await expect(periods.close(key(account, OCT), 'ops', 'again')).rejects.toMatchObject({
      code: 'already-closed',
    });
  });

  it('reopen needs a reason, keeps an audit record of every transition and never overwrites one', async () => {
    const account = newAccount();
    const { deliver, periods } = ledgerHarness(dynamo, tables);
    await expect(periods.reopen(key(account, OCT), 'ops', 'why')).rejects.toMatchObject({
      code: 'not-closed',
    });
    await deliver([
      { accountId: account, eventId: 'a', amount: '1', chargePeriodStart: inPeriod(OCT) },
    ]);
    await periods.close(key(account, OCT), 'ops', 'first close');
    await expect(periods.reopen(key(account, OCT), 'ops', '  ')).rejects.toBeInstanceOf(
      PeriodError,
    );
    await expect(periods.reopen(key(account, OCT), 'ops', '  ')).rejects.toMatchObject({
      code: 'reason-required',
    });

    const reopened = await periods.reopen(key(account, OCT), 'ops', 'AWS restated the invoice');
    expect(reopened).toMatchObject({ state: 'open', reopenReason: 'AWS restated the invoice' });
    const again = await periods.close(key(account, OCT), 'ops', 'second close');
    expect(again.closeCount).toBe(2);

    const audit = await auditRecords(account, OCT);
    expect(audit.Items?.map((item) => [item.action?.S, item.reason?.S])).toEqual([
      ['close', 'first close'],
      ['reopen', 'AWS restated the invoice'],
      ['close', 'second close'],
    ]);
  });

  it('status of a period never closed is open with nothing at close', async () => {
    const { periods } = ledgerHarness(dynamo, tables);
    expect(await periods.status(key(newAccount(), OCT))).toMatchObject({
      state: 'open',
      closeCount: 0,
      totalsAtClose: [],
    });
    await expect(periods.status(key('1', '2026-13'))).rejects.toMatchObject({
      code: 'invalid-period',
    });
  });
});

/** Every item of an `acme` account-period's partition, sort keys only. */
const sortKeysOf = async (account: string, period: string) =>
  (
    await dynamo.send(
      new QueryCommand({
        TableName: tables.ledgerTable,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: acmePartition(account, period) } },
        ConsistentRead: true,
      }),
    )
  ).Items?.map((item) => item.sk?.S) ?? [];

describe('the close rule: only an ended month with data (or forced)', () => {
  it('refuses a month that has not ended, even forced, and writes nothing', async () => {
    const account = newAccount();
    const { deliver, periods } = ledgerHarness(dynamo, tables);
    // The harness's clock is 2027-01-15: January has not ended, 2099 is far off.
    await deliver([
      { accountId: account, eventId: 'jan', amount: '1', chargePeriodStart: inPeriod('2027-01') },
    ]);
    const before = await sortKeysOf(account, '2027-01');
    await expect(periods.close(key(account, '2027-01'), 'ops', 'early')).rejects.toMatchObject({
      code: 'not-ended',
      message: `period 2027-01 of tenant acme, account ${account} has not ended: it ends at 2027-02-01T00:00:00.000Z (UTC) and can be closed from then on`,
    });
    await expect(
      periods.close(key(account, '2099-01'), 'ops', 'far ahead', { force: true }),
    ).rejects.toMatchObject({ code: 'not-ended' });
    expect(await sortKeysOf(account, '2027-01')).toEqual(before);
    expect(await sortKeysOf(account, '2099-01')).toEqual([]);
  });

  it('refuses an account-period with no data and writes nothing; forced, it closes with nothing booked', async () => {
    const account = newAccount();
    const { deliver, periods } = ledgerHarness(dynamo, tables);
    await expect(periods.close(key(account, OCT), 'ops', 'invoiced')).rejects.toMatchObject({
      code: 'no-data',
      message: `period ${OCT} of tenant acme, account ${account} holds no data (no stream total, no export snapshot of any source)`,
    });
    expect(await sortKeysOf(account, OCT)).toEqual([]);

    const forced = await periods.close(key(account, OCT), 'ops', 'zero invoice', { force: true });
    expect(forced).toMatchObject({ state: 'closed', closeCount: 1, totalsAtClose: [] });
    // Data arriving later is late: rolled into November as a correction of October.
    await deliver([
      { accountId: account, eventId: 'late', amount: '2', chargePeriodStart: inPeriod(OCT) },
    ]);
    expect(await statementOf(dynamo, tables, account, OCT)).toMatchObject({ total: '0' });
    expect(await statementOf(dynamo, tables, account, NOV)).toMatchObject({
      total: '2',
      corrections: [{ of: OCT, total: '2', charges: 1 }],
    });
    // Closed once, it may be closed again after a reopen without forcing.
    await periods.reopen(key(account, OCT), 'ops', 'reissued');
    expect(await periods.close(key(account, OCT), 'ops', 'again')).toMatchObject({
      closeCount: 2,
      totalsAtClose: [],
    });
  });
});

describe('late charges under roll-forward', () => {
  it('books a late charge, a late restatement and a late duplicate by the policy; the closed period never moves', async () => {
    const account = newAccount();
    const { deliver, periods } = ledgerHarness(dynamo, tables, {
      lateChargePolicy: 'roll-forward',
    });
    const october = (input: {
      lineItemId?: string;
      eventId?: string;
      version?: number;
      amount: string;
    }) => ({
      accountId: account,
      chargePeriodStart: inPeriod(OCT),
      ...input,
    });
    await deliver([october({ lineItemId: 'li-1', version: 1, amount: '10' })]);
    await deliver([
      { accountId: account, eventId: 'nov-1', amount: '1', chargePeriodStart: inPeriod(NOV) },
    ]);
    const atClose = await periods.close(key(account, OCT), 'ops', 'invoiced');

    const late = await deliver([
      october({ eventId: 'late-1', amount: '2.5' }),
      october({ lineItemId: 'li-1', version: 2, amount: '12' }),
    ]);
    expect(outcomes(late).sort()).toEqual(['applied', 'restated']);
    const duplicate = await deliver([october({ eventId: 'late-1', amount: '2.5' })]);
    expect(outcomes(duplicate)).toEqual(['duplicate']);

    expect(await statementOf(dynamo, tables, account, OCT)).toEqual({
      total: '10',
      charges: 1,
      status: 'closed',
      corrections: [],
    });
    expect(atClose.totalsAtClose).toEqual([{ currency: 'USD', total: '10', charges: 1 }]);
    expect(await statementOf(dynamo, tables, account, NOV)).toEqual({
      total: '5.5',
      charges: 2,
      status: 'open',
      corrections: [{ of: OCT, total: '4.5', charges: 1 }],
    });
    const charges = await readPartitionCharges(
      dynamo,
      tables.ledgerTable,
      acmePartition(account, OCT),
    );
    expect(
      charges.map((charge) => [charge.identityId, charge.amount, charge.bookedIn]).sort(),
    ).toEqual([
      ['late-1', '2.5', NOV],
      ['li-1', '12', NOV],
    ]);
    expect((await periods.status(key(account, OCT))).correctionsBookedLater).toEqual([
      { bookedIn: NOV, currency: 'USD', total: '4.5', charges: 1 },
    ]);
  });

  it('skips every closed period to the earliest open one after it', async () => {
    const account = newAccount();
    const { deliver, periods } = ledgerHarness(dynamo, tables);
    // Closed ahead of any data: what arrives later is late.
    await periods.close(key(account, OCT), 'ops', 'invoiced', { force: true });
    await periods.close(key(account, NOV), 'ops', 'invoiced', { force: true });

    const batch = await deliver([
      { accountId: account, eventId: 'x', amount: '3', chargePeriodStart: inPeriod(OCT) },
      { accountId: account, eventId: 'y', amount: '4', chargePeriodStart: inPeriod(OCT) },
    ]);

    expect(outcomes(batch)).toEqual(['applied', 'applied']);
    expect(await statementOf(dynamo, tables, account, NOV)).toMatchObject({
      total: '0',
      charges: 0,
    });
    expect(await statementOf(dynamo, tables, account, DEC)).toMatchObject({
      total: '7',
      charges: 2,
      corrections: [{ of: OCT, total: '7', charges: 2 }],
    });
  });
});

describe('late charges under reject', () => {
  it('sends a late charge and a late restatement to the DLQ as period-closed; after a reopen a redrive applies them', async () => {
    const account = newAccount();
    const { deliver, deliverRecords, periods, deadLetters } = ledgerHarness(dynamo, tables, {
      lateChargePolicy: 'reject',
    });
    await deliver([
      {
        accountId: account,
        lineItemId: 'li-1',
        version: 1,
        amount: '10',
        chargePeriodStart: inPeriod(OCT),
      },
    ]);
    await periods.close(key(account, OCT), 'ops', 'invoiced');

    const late = await deliver([
      { accountId: account, eventId: 'late', amount: '2', chargePeriodStart: inPeriod(OCT) },
      {
        accountId: account,
        lineItemId: 'li-1',
        version: 2,
        amount: '11',
        chargePeriodStart: inPeriod(OCT),
      },
      {
        accountId: account,
        lineItemId: 'li-1',
        version: 1,
        amount: '10',
        chargePeriodStart: inPeriod(OCT),
      },
    ]);

    expect(outcomes(late)).toEqual(['rejected', 'rejected', 'duplicate']);
    expect(deadLetters.sent.map((sent) => sent.rejection.code)).toEqual([
      'period-closed',
      'period-closed',
    ]);
    expect(deadLetters.sent[0].rejection.reason).toContain('billing period 2026-10');
    expect(await statementOf(dynamo, tables, account, OCT)).toMatchObject({
      total: '10',
      charges: 1,
    });
    expect(await statementOf(dynamo, tables, account, NOV)).toMatchObject({
      total: '0',
      charges: 0,
    });

    await periods.reopen(key(account, OCT), 'ops', 'late usage');
    const redriven = await deliverRecords(deadLetters.sent.map((sent) => sent.record));

    expect(outcomes(redriven).sort()).toEqual(['applied', 'restated']);
    expect(await statementOf(dynamo, tables, account, OCT)).toMatchObject({
      total: '13',
      charges: 2,
      status: 'open',
      corrections: [],
    });
  });
});

describe('voiding a charge', () => {
  const chargeSkOf = async (account: string, period: string, id: string) =>
    (await readPartitionCharges(dynamo, tables.ledgerTable, acmePartition(account, period))).find(
      (charge) => charge.identityId === id,
    )!.sk;

  it('in an open period: reverses it with an audit record; later copies and versions are voided; void is final', async () => {
    const account = newAccount();
    const { deliver, periods } = ledgerHarness(dynamo, tables);
    await deliver([
      {
        accountId: account,
        lineItemId: 'li-v',
        version: 1,
        amount: '8',
        chargePeriodStart: inPeriod(NOV),
      },
      { accountId: account, eventId: 'keep', amount: '1', chargePeriodStart: inPeriod(NOV) },
    ]);
    const chargeSk = await chargeSkOf(account, NOV, 'li-v');
    const request = {
      ...key(account, NOV),
      chargeSk,
      by: 'ops',
      reason: 'duplicate invoice line',
      policy: 'roll-forward' as const,
    };

    expect(await periods.voidCharge(request)).toEqual({ outcome: 'voided', bookedIn: NOV });
    expect(await periods.voidCharge(request)).toEqual({ outcome: 'already-voided', bookedIn: NOV });
    const after = await deliver([
      {
        accountId: account,
        lineItemId: 'li-v',
        version: 1,
        amount: '8',
        chargePeriodStart: inPeriod(NOV),
      },
      {
        accountId: account,
        lineItemId: 'li-v',
        version: 2,
        amount: '9',
        chargePeriodStart: inPeriod(NOV),
      },
    ]);

    expect(outcomes(after)).toEqual(['voided', 'voided']);
    expect(await statementOf(dynamo, tables, account, NOV)).toMatchObject({
      total: '1',
      charges: 1,
    });
    const charges = await readPartitionCharges(
      dynamo,
      tables.ledgerTable,
      acmePartition(account, NOV),
    );
    expect(charges.find((charge) => charge.sk === chargeSk)).toMatchObject({
      amount: '8',
      voidedBy: 'ops',
      voidReason: 'duplicate invoice line',
    });
    const audit = await dynamo.send(
      new GetItemCommand({
        TableName: tables.ledgerTable,
        Key: {
          pk: { S: acmePartition(account, NOV) },
          sk: { S: `VOID#${chargeSk.slice('CHARGE#'.length)}` },
        },
      }),
    );
    expect(audit.Item).toMatchObject({
      reason: { S: 'duplicate invoice line' },
      amount: { N: '8' },
    });
  });

  it('in a closed period: roll-forward books the reversal in the next open period; reject refuses it', async () => {
    const account = newAccount();
    const { deliver, periods } = ledgerHarness(dynamo, tables);
    await deliver([
      { accountId: account, eventId: 'old', amount: '5', chargePeriodStart: inPeriod(OCT) },
    ]);
    await periods.close(key(account, OCT), 'ops', 'invoiced');
    const chargeSk = await chargeSkOf(account, OCT, 'old');
    const request = { ...key(account, OCT), chargeSk, by: 'ops', reason: 'refund' };

    await expect(periods.voidCharge({ ...request, policy: 'reject' })).rejects.toMatchObject({
      code: 'period-closed',
    });
    expect(await periods.voidCharge({ ...request, policy: 'roll-forward' })).toEqual({
      outcome: 'voided',
      bookedIn: NOV,
    });

    expect(await statementOf(dynamo, tables, account, OCT)).toMatchObject({
      total: '5',
      charges: 1,
    });
    expect(await statementOf(dynamo, tables, account, NOV)).toMatchObject({
      total: '-5',
      charges: -1,
      corrections: [{ of: OCT, total: '-5', charges: -1 }],
    });
  });
});

describe('a close racing concurrent commits', () => {
  it('every charge lands wholly before the close (in its total) or wholly after (rolled forward), over 20 rounds', async () => {
    let raced = 0;
    for (let round = 0; round < 20; round++) {
      const account = newAccount();
      const { deliver, periods } = ledgerHarness(dynamo, tables, { totalShards: 4 });
      const amounts = Array.from(
        { length: 24 },
        (_, index) => `${round}.${String(index + 1).padStart(3, '0')}`,
      );
      // The close starts once a few charges (a different number each round) have landed, so it meets
      // the writers mid-stream.
      const startAfter = 2 + (round % 10);
      let landed = 0;
      let startClose = () => {};
      const closeMayStart = new Promise<void>((resolve) => (startClose = resolve));
      const writers = [0, 1, 2, 3].map(async (writer) => {
        for (let index = writer; index < amounts.length; index += 4) {
          await deliver([
            {
              accountId: account,
              eventId: `e-${index}`,
              amount: amounts[index],
              chargePeriodStart: inPeriod(OCT),
            },
          ]);
          if (++landed === startAfter) startClose();
        }
      });
      const close = (async () => {
        await closeMayStart;
        return periods.close(key(account, OCT), 'ops', `round ${round}`);
      })();
      const [closed] = await Promise.all([close, ...writers]);

      const charges = await readPartitionCharges(
        dynamo,
        tables.ledgerTable,
        acmePartition(account, OCT),
      );
      expect(charges).toHaveLength(amounts.length);
      const before = charges.filter((charge) => charge.bookedIn === undefined);
      const after = charges.filter((charge) => charge.bookedIn === NOV);
      expect(before.length + after.length).toBe(amounts.length);
      const october = await statementOf(dynamo, tables, account, OCT);
      const november = await statementOf(dynamo, tables, account, NOV);
      const atClose = closed.totalsAtClose.find((row) => row.currency === 'USD') ?? {
        total: '0',
        charges: 0,
      };
      expect(october).toMatchObject({ total: atClose.total, charges: atClose.charges });
      expect(await periods.stateOf(key(account, OCT))).toBe('closed');
      if (before.length > 0 && after.length > 0) raced++;
      expect(new Big(october.total).eq(sum(before.map((charge) => charge.amount)))).toBe(true);
      expect(october.charges).toBe(before.length);
      expect(new Big(november.total).eq(sum(after.map((charge) => charge.amount)))).toBe(true);
      expect(november.charges).toBe(after.length);
    }
    // How many rounds end with charges on both sides depends on timing; some always do.
    expect(raced).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('closes an account that 8 writers hammer with no gap between commits, in a few attempts', async () => {
    const account = newAccount();
    const { deliver } = ledgerHarness(dynamo, tables, { totalShards: 8 });
    let attempts = 1;
    const periods = new DynamoPeriods({
      client: dynamo,
      ledgerTable: tables.ledgerTable,
      totalShards: 8,
      pause: () => {
        attempts++;
        return new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      },
    });
    let next = 0;
    let closedYet = false;
    let landedBeforeClose = 0;
    const writer = async () => {
      // Each writer keeps committing, back to back, until it has committed 10 charges after the close.
      for (let afterClose = 0; afterClose < 10; afterClose += closedYet ? 1 : 0) {
        const index = next++;
        const batch = await deliver([
          {
            accountId: account,
            eventId: `h-${index}`,
            amount: `0.${String(index + 1).padStart(4, '0')}`,
            chargePeriodStart: inPeriod(OCT),
          },
        ]);
        expect(outcomes(batch)).toEqual(['applied']);
        if (!closedYet) landedBeforeClose++;
      }
    };
    const writers = Array.from({ length: 8 }, writer);
    while (landedBeforeClose < 40) await new Promise((resolve) => setTimeout(resolve, 5));
    const closed = await periods.close(key(account, OCT), 'ops', 'busy account');
    closedYet = true;
    await Promise.all(writers);

    expect(attempts).toBeLessThanOrEqual(3);
    const charges = await readPartitionCharges(
      dynamo,
      tables.ledgerTable,
      acmePartition(account, OCT),
    );
    expect(charges).toHaveLength(next);
    const before = charges.filter((charge) => charge.bookedIn === undefined);
    const after = charges.filter((charge) => charge.bookedIn === NOV);
    expect(before.length).toBeGreaterThanOrEqual(40);
    expect(after.length).toBeGreaterThanOrEqual(80);
    expect(before.length + after.length).toBe(next);
    const [atClose] = closed.totalsAtClose;
    expect(new Big(atClose.total).eq(sum(before.map((charge) => charge.amount)))).toBe(true);
    expect(atClose.charges).toBe(before.length);
    expect(await statementOf(dynamo, tables, account, OCT)).toMatchObject({
      total: atClose.total,
      charges: atClose.charges,
      status: 'closed',
    });
    const november = await statementOf(dynamo, tables, account, NOV);
    expect(new Big(november.total).eq(sum(after.map((charge) => charge.amount)))).toBe(true);
    expect(november.charges).toBe(after.length);
  }, 60_000);

  it('a closer that stops after freezing the shards leaves a closed period that status or close completes', async () => {
    const account = newAccount();
    const { deliver, periods } = ledgerHarness(dynamo, tables);
    await deliver([
      { accountId: account, eventId: 'a', amount: '1.25', chargePeriodStart: inPeriod(OCT) },
      { accountId: account, eventId: 'b', amount: '2.5', chargePeriodStart: inPeriod(OCT) },
    ]);
    const closer = new DynamoPeriods({
      client: stopsAfterFreezing(dynamo),
      ledgerTable: tables.ledgerTable,
    });
    await expect(closer.close(key(account, OCT), 'ops', 'invoiced')).rejects.toThrow(
      'closer stopped',
    );

    // Frozen: a charge now is rolled forward; the closed statement needs no totalsAtClose.
    await deliver([
      { accountId: account, eventId: 'c', amount: '4', chargePeriodStart: inPeriod(OCT) },
    ]);
    expect(await statementOf(dynamo, tables, account, OCT)).toMatchObject({
      total: '3.75',
      charges: 2,
      status: 'closed',
    });
    const periodItem = async () =>
      (
        await dynamo.send(
          new GetItemCommand({
            TableName: tables.ledgerTable,
            Key: { pk: { S: acmePartition(account, OCT) }, sk: { S: 'PERIOD' } },
            ConsistentRead: true,
          }),
        )
      ).Item;
    expect((await periodItem())?.totalsAtClose).toBeUndefined();

    const status = await periods.status(key(account, OCT));
    expect(status).toMatchObject({
      state: 'closed',
      closeCount: 1,
      closeReason: 'invoiced',
      totalsAtClose: [{ currency: 'USD', total: '3.75', charges: 2 }],
    });
    expect((await periodItem())?.totalsAtClose).toBeDefined();
    await expect(periods.close(key(account, OCT), 'ops', 'again')).rejects.toMatchObject({
      code: 'already-closed',
    });
  });

  it('close itself completes a close whose closer stopped after freezing', async () => {
    const account = newAccount();
    const { deliver, periods } = ledgerHarness(dynamo, tables);
    await deliver([
      { accountId: account, eventId: 'a', amount: '9.99', chargePeriodStart: inPeriod(OCT) },
    ]);
    await expect(
      new DynamoPeriods({
        client: stopsAfterFreezing(dynamo),
        ledgerTable: tables.ledgerTable,
      }).close(key(account, OCT), 'ops', 'invoiced'),
    ).rejects.toThrow('closer stopped');

    const completed = await periods.close(key(account, OCT), 'ops', 'retry');
    expect(completed).toMatchObject({
      state: 'closed',
      closeCount: 1,
      closeReason: 'invoiced',
      totalsAtClose: [{ currency: 'USD', total: '9.99', charges: 1 }],
    });
    const audit = await auditRecords(account, OCT);
    expect(
      audit.Items?.map((item) => [item.action?.S, item.totalsAtClose?.M?.USD?.M?.total]),
    ).toEqual([['close', { S: '9.99' }]]);
  });
});

describe('property: any interleaving of charges, duplicates, restatements, closes and reopens', () => {
  type Op =
    | { kind: 'charge'; item: number; period: number; cents: number }
    | { kind: 'redeliver'; pick: number }
    | { kind: 'close' | 'reopen'; period: number };
  const PERIODS = [OCT, NOV, DEC];
  const op: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('charge' as const),
        item: fc.nat(5),
        period: fc.nat(2),
        cents: fc.integer({ min: -5_000, max: 100_000 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('redeliver' as const), pick: fc.nat() }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constantFrom('close' as const, 'reopen' as const),
        period: fc.nat(2),
      }),
    },
  );

  it('the sum over all periods is the latest versions of all distinct charges; a closed period never changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 25 }), async (ops) => {
        const account = newAccount();
        const { deliver, periods } = ledgerHarness(dynamo, tables, { totalShards: 2 });
        const items = new Map<number, { period: string; version: number; amount: string }>();
        const delivered: Parameters<typeof deliver>[0] = [];
        const closedAt = new Map<string, { total: string; charges: number }>();
        for (const step of ops) {
          if (step.kind === 'charge') {
            const known = items.get(step.item);
            const next = {
              period: known?.period ?? PERIODS[step.period],
              version: (known?.version ?? 0) + 1,
              amount: new Big(step.cents).div(100).toFixed(),
            };
            items.set(step.item, next);
            const event = {
              accountId: account,
              lineItemId: `li-${step.item}`,
              version: next.version,
              amount: next.amount,
              chargePeriodStart: inPeriod(next.period),
            };
            delivered.push(event);
            expect((await deliver([event])).batchItemFailures).toEqual([]);
          } else if (step.kind === 'redeliver') {
            if (delivered.length === 0) continue;
            const again = delivered[step.pick % delivered.length];
            const batch = await deliver([again]);
            expect(batch.results.map((result) => result.outcome)).toEqual([
              expect.stringMatching(/^(duplicate|superseded)$/),
            ]);
          } else {
            const period = PERIODS[step.period];
            const state = await periods.stateOf(key(account, period));
            if (step.kind === 'close' && state === 'open') {
              const closed = await periods.close(key(account, period), 'ops', 'property', {
                force: true,
              });
              const usd = closed.totalsAtClose.find((row) => row.currency === 'USD');
              closedAt.set(period, { total: usd?.total ?? '0', charges: usd?.charges ?? 0 });
            } else if (step.kind === 'reopen' && state === 'closed') {
              await periods.reopen(key(account, period), 'ops', 'property');
              closedAt.delete(period);
            }
          }
          for (const [period, atClose] of closedAt) {
            const now = await statementOf(dynamo, tables, account, period);
            expect({ total: now.total, charges: now.charges }).toEqual(atClose);
          }
        }
        const rows = (await readAllTotals(dynamo, tables.ledgerTable)).filter(
          (row) => row.accountId === account,
        );
        const latest = [...items.values()].map((item) => item.amount);
        expect(new Big(sum(rows.map((row) => row.total))).eq(sum(latest))).toBe(true);
        expect(rows.reduce((acc, row) => acc + row.charges, 0)).toBe(items.size);
      }),
      { numRuns: 15, seed: 20261101 },
    );
  }, 300_000);
});
