import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { AzureAcquisitionCursor } from '../../lambda/adapters/azure-acquisition-cursor';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { cli, writeTemp } from './helpers';

const SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:acme-azure-AbCdEf';
const source = (container: string) => ({
  tenant: 'acme',
  storageAccountUrl: 'https://acmecosts.blob.core.windows.net',
  container,
  exportFolder: 'cost-exports/acme-focus-daily/',
  secretArn: SECRET,
  prefix: 'acme',
});
const secretsManager = new SecretsManagerClient({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const secrets = mockClient(secretsManager);

let dynamo: DynamoDBClient;
let tables: LedgerTables;
let outputsFile: string;

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  outputsFile = writeTemp(
    'outputs.json',
    JSON.stringify({
      'billing-dedup-dev-stateful': { LedgerTableName: tables.ledgerTable },
      'billing-dedup-dev-stateless': {
        ExportBucketName: 'exports',
        AzureExportSources: JSON.stringify([source('exports'), source('more')]),
      },
    }),
  );
  await new AzureAcquisitionCursor({
    client: dynamo,
    ledgerTable: tables.ledgerTable,
    sourceId: 'acmecosts.blob.core.windows.net/exports/cost-exports/acme-focus-daily',
    now: () => new Date('2024-09-20T19:00:00.000Z'),
  }).advance({
    submittedTime: '2024-09-20T18:33:03.1032074Z',
    runId: 'af754a8e-30fc-4ef3-bfc6-71bd1efb8598',
    period: '2024-09',
  });
});

afterAll(() => dynamo.destroy());
beforeEach(() => secrets.reset());

const acquire = (...args: string[]) =>
  cli(['acquire', ...args, '--outputs-file', outputsFile], { clients: { dynamo, secretsManager } });

describe('billing-dedup acquire status', () => {
  it('shows the cursor of each Azure export source of the tenant', async () => {
    const result = await acquire('status', '--tenant', 'acme', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      tenant: 'acme',
      sources: [
        {
          sourceId: 'acmecosts.blob.core.windows.net/exports/cost-exports/acme-focus-daily',
          exportFolder: 'cost-exports/acme-focus-daily/',
          prefix: 'acme',
          cursor: {
            submittedTime: '2024-09-20T18:33:03.1032074Z',
            runId: 'af754a8e-30fc-4ef3-bfc6-71bd1efb8598',
            period: '2024-09',
            updatedAt: '2024-09-20T19:00:00.000Z',
          },
        },
        {
          sourceId: 'acmecosts.blob.core.windows.net/more/cost-exports/acme-focus-daily',
          exportFolder: 'cost-exports/acme-focus-daily/',
          prefix: 'acme',
        },
      ],
    });
  });

  it('prints a table, with "(none yet)" for a source never copied', async () => {
    const result = await acquire('status', '--tenant', 'acme');
    expect(result.stdout).toContain('af754a8e-30fc-4ef3-bfc6-71bd1efb8598');
    expect(result.stdout).toMatch(/more\/cost-exports\/acme-focus-daily\s+acme\/\s+\(none yet\)/);
  });

  it('refuses a tenant without an Azure source (exit 2), naming the configured ones', async () => {
    const result = await acquire('status', '--tenant', 'globex');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'no Azure export source is configured for tenant "globex" (configured: acme)',
    );
  });
});

describe('billing-dedup acquire run', () => {
  it('reads the secret of each source and fails (exit 1) naming each source and the secret shape to store', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: SECRET }).resolves({ SecretString: 'hunter2' });
    const result = await acquire('run', '--tenant', 'acme');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Azure acquisition of tenant acme: 2 of 2 sources failed');
    expect(result.stderr).toContain(
      'acmecosts.blob.core.windows.net/more/cost-exports/acme-focus-daily:',
    );
    expect(result.stderr).toContain('store the secret as JSON {"tenantId"');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });
});
