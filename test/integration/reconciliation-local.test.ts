import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readReconciliations } from '../../lambda/adapters/reconciliation-records';
import {
  ProviderStandIn,
  parseProviderTotal,
  parseReconcile,
  reconcileLocally,
  reconciliationCheck,
} from '../../local/reconciliation/stand-in';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { costEvent } from '../support/cost-events';
import { costLedgerHandlerOn } from '../support/ledger-harness';
import { sqsEvent, sqsRecord } from '../support/sqs-events';

let dynamo: DynamoDBClient;
let tables: LedgerTables;
const NOW = Date.parse('2026-12-02T04:30:00Z');

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  const handler = costLedgerHandlerOn(dynamo, tables);
  for (const event of [
    costEvent({ accountId: '600000000001', eventId: 'a', amount: '1000.00' }),
    costEvent({ accountId: '600000000002', eventId: 'b', amount: '80' }),
  ])
    expect((await handler(sqsEvent([sqsRecord(event)]))).batchItemFailures).toEqual([]);
});

afterAll(() => dynamo.destroy());

describe('local provider stand-in', () => {
  it('reconciles the local ledger: within tolerance, drifting, missing; records written', async () => {
    const standIn = new ProviderStandIn();
    for (const line of [
      {
        tenant: 'ACME',
        accountId: '600000000001',
        period: '2026-11',
        currency: 'usd',
        amount: '1000.9',
      },
      {
        tenant: 'acme',
        accountId: '600000000002',
        period: '2026-11',
        currency: 'USD',
        amount: 100,
      },
      {
        tenant: 'acme',
        accountId: '600000000003',
        period: '2026-11',
        currency: 'USD',
        amount: '12',
      },
    ])
      standIn.add(parseProviderTotal(line));
    const rows = await reconcileLocally(
      dynamo,
      tables.ledgerTable,
      standIn,
      parseReconcile({ period: '2026-11' }),
      NOW,
    );
    expect(rows).toEqual([
      {
        tenant: 'acme',
        accountId: '600000000001',
        period: '2026-11',
        currency: 'USD',
        ledger: '1000',
        provider: '1000.9',
        difference: '-0.9',
        status: 'ok',
      },
      {
        tenant: 'acme',
        accountId: '600000000002',
        period: '2026-11',
        currency: 'USD',
        ledger: '80',
        provider: '100',
        difference: '-20',
        status: 'drift',
      },
      {
        tenant: 'acme',
        accountId: '600000000003',
        period: '2026-11',
        currency: 'USD',
        ledger: '0',
        provider: '12',
        difference: '-12',
        status: 'missing-in-ledger',
      },
    ]);
    expect(reconciliationCheck(rows).ok).toBe(true);
    expect(reconciliationCheck(rows.slice(0, 2)).ok).toBe(false);
    expect((await readReconciliations(dynamo, tables.ledgerTable, '2026-11')).length).toBe(3);
  });

  it('refuses malformed lines', () => {
    expect(() =>
      parseProviderTotal({
        tenant: 'acme',
        accountId: '1',
        period: '2026-13',
        currency: 'USD',
        amount: '1',
      }),
    ).toThrow('period');
    expect(() =>
      parseProviderTotal({
        tenant: 'acme',
        accountId: '1',
        period: '2026-11',
        currency: 'USD',
        amount: 'x',
      }),
    ).toThrow();
    expect(() => parseReconcile({})).toThrow('reconcile.period');
  });
});
