import { CostExplorerClient, GetCostAndUsageCommand } from '@aws-sdk/client-cost-explorer';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { InvoicingClient, ListInvoiceSummariesCommand } from '@aws-sdk/client-invoicing';
import { SNSClient } from '@aws-sdk/client-sns';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { assumedRoleCredentials } from '../../../lambda/adapters/assumed-role-credentials';
import { createTelemetry } from '../../../lambda/adapters/telemetry';
import {
  createReconciliationHandler,
  reconciliationSettings,
} from '../../../lambda/handlers/reconciliation';

const ROLE = 'arn:aws:iam::999999999999:role/billing-dedup-reconciliation-reader';
const EXTERNAL_ID = '6f1c2a0e-0b7e-4c55-9a51-3f2d8f0c7d11';
const own = { accessKeyId: 'OWN', secretAccessKey: 'own' };
const NOW = Date.UTC(2026, 11, 10);

// Every instance of these clients, including the ones the handler builds for the payer role.
const sts = mockClient(STSClient);
const costExplorer = mockClient(CostExplorerClient);
const invoicing = mockClient(InvoicingClient);
const dynamo = mockClient(DynamoDBClient);

const assumed = (expiresAt: number, key = 'ASSUMED') => ({
  Credentials: {
    AccessKeyId: key,
    SecretAccessKey: 'assumed-secret',
    SessionToken: 'assumed-token',
    Expiration: new Date(expiresAt),
  },
});

beforeEach(() => {
  for (const mock of [sts, costExplorer, invoicing, dynamo]) mock.reset();
  sts.on(AssumeRoleCommand).resolves(assumed(NOW + 3_600_000));
  dynamo.on(ScanCommand).resolves({ Items: [] });
  costExplorer.on(GetCostAndUsageCommand).resolves({ ResultsByTime: [] });
  invoicing.on(ListInvoiceSummariesCommand).resolves({ InvoiceSummaries: [] });
});

describe('assumedRoleCredentials', () => {
  it('assumes the role with its ExternalId and keeps the credentials until 5 minutes before they expire', async () => {
    let now = NOW;
    const provider = assumedRoleCredentials({
      sts: new STSClient({ region: 'us-east-1', credentials: own }),
      roleArn: ROLE,
      externalId: EXTERNAL_ID,
      sessionName: 'billing-dedup-reconciliation',
      now: () => now,
    });
    await expect(provider()).resolves.toMatchObject({
      accessKeyId: 'ASSUMED',
      sessionToken: 'assumed-token',
    });
    expect(sts.commandCalls(AssumeRoleCommand).map((call) => call.args[0].input)).toEqual([
      {
        RoleArn: ROLE,
        ExternalId: EXTERNAL_ID,
        RoleSessionName: 'billing-dedup-reconciliation',
        DurationSeconds: 3600,
      },
    ]);
    now = NOW + 54 * 60_000;
    await provider();
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(1);
    sts.on(AssumeRoleCommand).resolves(assumed(NOW + 2 * 3_600_000, 'RENEWED'));
    now = NOW + 56 * 60_000;
    await expect(provider()).resolves.toMatchObject({ accessKeyId: 'RENEWED' });
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
  });

  it('refuses an answer without credentials, and surfaces a refused AssumeRole', async () => {
    const provider = () =>
      assumedRoleCredentials({
        sts: new STSClient({ region: 'us-east-1', credentials: own }),
        roleArn: ROLE,
        externalId: EXTERNAL_ID,
        sessionName: 's',
      })();
    sts.on(AssumeRoleCommand).resolves({});
    await expect(provider()).rejects.toThrow(`AssumeRole of ${ROLE} returned no credentials`);
    sts
      .on(AssumeRoleCommand)
      .rejects(Object.assign(new Error('not authorized'), { name: 'AccessDenied' }));
    await expect(provider()).rejects.toThrow('not authorized');
  });
});

describe('the nightly function with a payer role', () => {
  const env = {
    LEDGER_TABLE_NAME: 'ledger',
    NOTIFICATIONS_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:notifications',
    DEDUP_TABLE_NAME: 'dedup',
  };
  const given = new CostExplorerClient({ region: 'us-east-1', credentials: own });
  const run = (extra: Record<string, string>) =>
    createReconciliationHandler(
      { ...env, ...extra },
      {
        dynamo: new DynamoDBClient({ region: 'us-east-1', credentials: own }),
        costExplorer: given,
        sns: new SNSClient({ region: 'us-east-1', credentials: own }),
        sts: new STSClient({ region: 'us-east-1', credentials: own }),
        now: () => NOW,
        telemetry: createTelemetry({ POWERTOOLS_DEV: 'true', POWERTOOLS_METRICS_DISABLED: 'true' }),
      },
    )({});
  const withRole = { RECONCILIATION_ROLE_ARN: ROLE, RECONCILIATION_EXTERNAL_ID: EXTERNAL_ID };

  it('asks Cost Explorer with the credentials of the assumed role, not its own', async () => {
    await run(withRole);
    const calls = costExplorer.commandCalls(GetCostAndUsageCommand);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      const client = call.thisValue as CostExplorerClient;
      expect(client).not.toBe(given);
      await expect(client.config.credentials()).resolves.toMatchObject({
        accessKeyId: 'ASSUMED',
        sessionToken: 'assumed-token',
      });
      await expect(client.config.region()).resolves.toBe('us-east-1');
    }
    // The client resolves its credentials when it signs (the mocked send does not): once, for the role.
    expect(sts.commandCalls(AssumeRoleCommand).map((call) => call.args[0].input)).toEqual([
      expect.objectContaining({ RoleArn: ROLE, ExternalId: EXTERNAL_ID }),
    ]);
  });

  it('asks the Invoicing API under the assumed role too', async () => {
    await run({
      ...withRole,
      RECONCILIATION_PROVIDER: 'invoicing',
      RECONCILIATION_INVOICE_ACCOUNTS: '999999999999',
    });
    const [call] = invoicing.commandCalls(ListInvoiceSummariesCommand);
    await expect((call.thisValue as InvoicingClient).config.credentials()).resolves.toMatchObject({
      accessKeyId: 'ASSUMED',
    });
    expect(costExplorer.commandCalls(GetCostAndUsageCommand)).toHaveLength(0);
  });

  it('without a role: its own client, no AssumeRole', async () => {
    await run({});
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(0);
    const [call] = costExplorer.commandCalls(GetCostAndUsageCommand);
    expect(call.thisValue).toBe(given);
  });

  it('refuses a role without its ExternalId (and the other way round)', () => {
    expect(() => reconciliationSettings({ ...env, RECONCILIATION_ROLE_ARN: ROLE })).toThrow(
      'RECONCILIATION_ROLE_ARN and RECONCILIATION_EXTERNAL_ID go together',
    );
    expect(() =>
      reconciliationSettings({ ...env, RECONCILIATION_EXTERNAL_ID: EXTERNAL_ID }),
    ).toThrow('go together');
  });
});
