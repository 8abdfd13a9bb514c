import {
  InvoicingClient,
  ListInvoiceSummariesCommand,
  type InvoiceSummary,
} from '@aws-sdk/client-invoicing';
import { CostExplorerClient, GetCostAndUsageCommand } from '@aws-sdk/client-cost-explorer';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { createTelemetry } from '../../../lambda/adapters/telemetry';
import {
  createReconciliationHandler,
  reconciliationSettings,
} from '../../../lambda/handlers/reconciliation';
import {
  InvoiceCurrencyMismatch,
  InvoicingTotals,
} from '../../../lambda/adapters/invoicing-totals';

const client = new InvoicingClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const invoicing = mockClient(client);
beforeEach(() => invoicing.reset());

const PAYER = '123456789012';
const OTHER = '210987654321';
/** 2026-12-10: November has ended, December has not. */
const DECEMBER_10 = Date.UTC(2026, 11, 10);

const summary = (
  id: string,
  type: InvoiceSummary['InvoiceType'],
  amount: string,
  currency = 'USD',
): InvoiceSummary => ({
  InvoiceId: id,
  AccountId: PAYER,
  InvoiceType: type,
  BillingPeriod: { Year: 2026, Month: 11 },
  BaseCurrencyAmount: { TotalAmount: amount, CurrencyCode: currency },
});

const totals = (accounts = [PAYER], now = DECEMBER_10) =>
  new InvoicingTotals({ client, accounts, now: () => now, backoff: () => Promise.resolve() });

describe('InvoicingTotals (ListInvoiceSummaries)', () => {
  it('asks per billing account and period, follows every page, sums invoices less credit memos exactly', async () => {
    invoicing
      .on(ListInvoiceSummariesCommand, { NextToken: undefined })
      .resolves({
        InvoiceSummaries: [
          summary('inv-1', 'INVOICE', '1000.10'),
          summary('cm-1', 'CREDIT_MEMO', '-0.30'),
        ],
        NextToken: 'page-2',
      })
      .on(ListInvoiceSummariesCommand, { NextToken: 'page-2' })
      .resolves({
        InvoiceSummaries: [
          summary('inv-2', 'INVOICE', '0.2'),
          // The sign of a credit memo is not relied on: it always takes away.
          summary('cm-2', 'CREDIT_MEMO', '10'),
          summary('rcpt-1', 'PAYMENT_RECEIPT', '990'),
        ],
      });
    const provider = totals();
    expect(await provider.periodTotals('2026-11')).toEqual({
      period: '2026-11',
      final: true,
      figures: [{ accountId: PAYER, period: '2026-11', currency: 'USD', amount: '990' }],
    });
    const calls = invoicing.commandCalls(ListInvoiceSummariesCommand).map((c) => c.args[0].input);
    expect(calls).toEqual([
      {
        Selector: { ResourceType: 'ACCOUNT_ID', Value: PAYER },
        Filter: { BillingPeriod: { Year: 2026, Month: 11 } },
      },
      {
        Selector: { ResourceType: 'ACCOUNT_ID', Value: PAYER },
        Filter: { BillingPeriod: { Year: 2026, Month: 11 } },
        NextToken: 'page-2',
      },
    ]);
    expect(provider.requests).toBe(2);
  });

  it('refuses to sum invoices of one account-period in two currencies', async () => {
    invoicing.on(ListInvoiceSummariesCommand).resolves({
      InvoiceSummaries: [
        summary('inv-1', 'INVOICE', '100', 'USD'),
        summary('cm-1', 'CREDIT_MEMO', '5', 'EUR'),
      ],
    });
    const run = totals().periodTotals('2026-11');
    await expect(run).rejects.toBeInstanceOf(InvoiceCurrencyMismatch);
    await expect(totals().periodTotals('2026-11')).rejects.toThrow(
      `invoices of account ${PAYER} for 2026-11 are in EUR and USD`,
    );
  });

  it('is estimated while the period runs, or while an account has no invoice for it yet', async () => {
    invoicing
      .on(ListInvoiceSummariesCommand, { Selector: { ResourceType: 'ACCOUNT_ID', Value: PAYER } })
      .resolves({ InvoiceSummaries: [summary('inv-1', 'INVOICE', '12')] })
      .on(ListInvoiceSummariesCommand, { Selector: { ResourceType: 'ACCOUNT_ID', Value: OTHER } })
      .resolves({ InvoiceSummaries: [] });
    expect((await totals([PAYER], Date.UTC(2026, 10, 30)).periodTotals('2026-11')).final).toBe(
      false,
    );
    const both = await totals([PAYER, OTHER]).periodTotals('2026-11');
    expect(both.final).toBe(false);
    expect(both.figures).toEqual([
      { accountId: PAYER, period: '2026-11', currency: 'USD', amount: '12' },
    ]);
  });

  it('retries throttling with back-off; any other error fails the run', async () => {
    invoicing
      .on(ListInvoiceSummariesCommand)
      .rejectsOnce(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }))
      .resolves({ InvoiceSummaries: [summary('inv-1', 'INVOICE', '3.5')] });
    const provider = totals();
    expect((await provider.periodTotals('2026-11')).figures).toEqual([
      { accountId: PAYER, period: '2026-11', currency: 'USD', amount: '3.5' },
    ]);
    expect(provider.requests).toBe(2);
    invoicing
      .on(ListInvoiceSummariesCommand)
      .rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    await expect(totals().periodTotals('2026-11')).rejects.toThrow('denied');
  });
});

describe('the nightly function selects the provider by config', () => {
  const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };
  const dynamoClient = new DynamoDBClient({ region: 'us-east-1', credentials });
  const costExplorerClient = new CostExplorerClient({ region: 'us-east-1', credentials });
  const dynamo = mockClient(dynamoClient);
  const costExplorer = mockClient(costExplorerClient);
  const env = {
    LEDGER_TABLE_NAME: 'ledger',
    NOTIFICATIONS_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:notifications',
    DEDUP_TABLE_NAME: 'dedup',
  };
  const run = (extra: Record<string, string>) =>
    createReconciliationHandler(
      { ...env, ...extra },
      {
        dynamo: dynamoClient,
        costExplorer: costExplorerClient,
        invoicing: client,
        sns: new SNSClient({ region: 'us-east-1', credentials }),
        now: () => DECEMBER_10,
        telemetry: createTelemetry({ POWERTOOLS_DEV: 'true', POWERTOOLS_METRICS_DISABLED: 'true' }),
      },
    )({});

  beforeEach(() => {
    dynamo.reset();
    costExplorer.reset();
    dynamo.on(ScanCommand).resolves({ Items: [] });
    costExplorer.on(GetCostAndUsageCommand).resolves({ ResultsByTime: [] });
    invoicing
      .on(ListInvoiceSummariesCommand)
      .resolves({ InvoiceSummaries: [summary('inv-1', 'INVOICE', '12')] });
  });

  it('invoicing: asks the Invoicing API for each configured billing account, never Cost Explorer', async () => {
    const result = await run({
      RECONCILIATION_PROVIDER: 'invoicing',
      RECONCILIATION_INVOICE_ACCOUNTS: `${PAYER}, ${OTHER}`,
    });
    const asked = invoicing
      .commandCalls(ListInvoiceSummariesCommand)
      .map((call) => call.args[0].input.Selector?.Value);
    expect(new Set(asked)).toEqual(new Set([PAYER, OTHER]));
    expect(costExplorer.commandCalls(GetCostAndUsageCommand)).toHaveLength(0);
    expect(result.providerRequests).toBe(asked.length);
  });

  it('cost-explorer (the default): never the Invoicing API', async () => {
    await run({});
    expect(costExplorer.commandCalls(GetCostAndUsageCommand).length).toBeGreaterThan(0);
    expect(invoicing.commandCalls(ListInvoiceSummariesCommand)).toHaveLength(0);
  });

  it('refuses an unknown provider, and invoicing without billing accounts, naming the variable', () => {
    expect(() => reconciliationSettings({ ...env, RECONCILIATION_PROVIDER: 'invoices' })).toThrow(
      'Environment variable RECONCILIATION_PROVIDER must be cost-explorer or invoicing, got "invoices"',
    );
    expect(() => reconciliationSettings({ ...env, RECONCILIATION_PROVIDER: 'invoicing' })).toThrow(
      'Environment variable RECONCILIATION_INVOICE_ACCOUNTS must name the billing accounts',
    );
  });
});
