import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose';
import type { GcpBillingSource } from '../../contract/gcp-acquisition';
import { AzureAcquisitionCursor } from '../../lambda/adapters/azure-acquisition-cursor';
import { localS3ClientConfig, startLocalS3, type LocalS3 } from '../../local/emulators/s3';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import {
  startBigQueryStandIn,
  type BigQueryStandIn,
  type StandInRow,
} from '../../local/emulators/bigquery-stand-in';
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

/** A local outputs file of a stage: the ledger table, these stateless outputs, these endpoints. */
const stageOutputs = (stateless: Record<string, string>, endpoints?: Record<string, string>) =>
  writeTemp(
    'outputs.json',
    JSON.stringify({
      'billing-dedup-dev-stateful': { LedgerTableName: tables.ledgerTable },
      'billing-dedup-dev-stateless': stateless,
      ...(endpoints ? { endpoints } : {}),
    }),
  );

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  outputsFile = stageOutputs({
    ExportBucketName: 'exports',
    AzureExportSources: JSON.stringify([source('exports'), source('more')]),
  });
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

describe('billing-dedup acquire for GCP billing sources (BigQuery stand-in, local S3)', () => {
  const GCP_SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:initech-gcp-AbCdEf';
  const CLIENT_EMAIL = 'billing-reader@initech-billing.iam.gserviceaccount.com';
  const TABLE = 'initech-billing.billing.gcp_billing_export_v1_01A2B3_C4D5E6_F7A8B9';
  const gcpSource: GcpBillingSource = {
    tenant: 'initech',
    jobProject: 'initech-billing',
    table: TABLE,
    location: 'US',
    secretArn: GCP_SECRET,
    prefix: 'initech',
    exportName: 'gcp-billing',
  };
  /** A September 2024 usage row in the month query's column order. */
  const row = (index: number, exportTime: string): StandInRow => ({
    partitionDay: exportTime.slice(0, 10),
    exportTime,
    invoiceMonth: '202409',
    cells: [
      { v: '01A2B3-C4D5E6-F7A8B9' },
      { v: 'initech-web' },
      { v: 'Compute Engine' },
      { v: `SKU-${index}` },
      { v: `sku ${index}` },
      { v: 'us-central1' },
      { v: `2024-09-${String(index + 1).padStart(2, '0')}T00:00:00.000000Z` },
      { v: `2024-09-${String(index + 1).padStart(2, '0')}T01:00:00.000000Z` },
      { v: 'regular' },
      { v: 'USD' },
      { v: `${index}.25` },
      { v: [] },
      { v: '1.0' },
      { v: 'hour' },
    ],
  });
  let s3: LocalS3;
  let s3Client: S3Client;
  let standIn: BigQueryStandIn;
  let keyJson: string;
  let gcpOutputs: string;

  beforeAll(async () => {
    const keys = await generateKeyPair('RS256', { extractable: true });
    keyJson = JSON.stringify({
      type: 'service_account',
      client_email: CLIENT_EMAIL,
      private_key: await exportPKCS8(keys.privateKey),
      private_key_id: 'key-1',
    });
    [s3, standIn] = await Promise.all([
      startLocalS3({ buckets: ['gcp-exports'] }),
      startBigQueryStandIn({
        clock: Date.now,
        publicKeyPem: await exportSPKI(keys.publicKey),
        clientEmail: CLIENT_EMAIL,
      }),
    ]);
    s3Client = new S3Client(localS3ClientConfig(s3.endpoint));
    standIn.rows.push(...[0, 1, 2].map((i) => row(i, '2024-09-20T08:00:00.000000Z')));
    gcpOutputs = stageOutputs(
      { ExportBucketName: 'gcp-exports', GcpBillingSources: JSON.stringify([gcpSource]) },
      { bigquery: standIn.endpoint, googleToken: standIn.tokenEndpoint },
    );
  });

  afterAll(async () => {
    s3Client?.destroy();
    await Promise.all([s3?.stop(), standIn?.stop()]);
  });

  const gcpAcquire = (...args: string[]) =>
    cli(['acquire', ...args, '--outputs-file', gcpOutputs], {
      clients: { dynamo, secretsManager, s3: s3Client },
    });

  it('status before any pass: the source with no month yet', async () => {
    const result = await gcpAcquire('status', '--tenant', 'initech', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      tenant: 'initech',
      gcpSources: [
        {
          sourceId: TABLE,
          prefix: 'initech',
          exportName: 'gcp-billing',
          watermarks: {},
          months: [],
        },
      ],
    });
    expect((await gcpAcquire('status', '--tenant', 'initech')).stdout).toMatch(
      /initech\/gcp-billing\/\s+\(none yet\)/,
    );
  });

  it('run makes a pass with the key from Secrets Manager; status then shows the job, pages and watermarks', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: GCP_SECRET }).resolves({ SecretString: keyJson });
    const result = await gcpAcquire('run', '--tenant', 'initech', '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { gcpPasses } = JSON.parse(result.stdout) as {
      gcpPasses: {
        sourceId: string;
        report: {
          changed: string[];
          months: {
            period: string;
            executionId: string;
            rows: number;
            pages: number;
            manifestWritten: boolean;
            totals: Record<string, string>;
          }[];
        };
      }[];
    };
    expect(gcpPasses).toHaveLength(1);
    const [month] = gcpPasses[0].report.months;
    expect(gcpPasses[0].report.changed).toEqual(['202409']);
    expect(month).toMatchObject({ period: '2024-09', rows: 3, pages: 1, manifestWritten: true });
    expect(month.totals).toEqual({ USD: '3.75' });
    const listed = await s3Client.send(
      new ListObjectsV2Command({ Bucket: 'gcp-exports', Prefix: 'initech/gcp-billing/' }),
    );
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([
      `initech/gcp-billing/data/BILLING_PERIOD=2024-09/${month.executionId}/page-000000.csv`,
      `initech/gcp-billing/metadata/BILLING_PERIOD=2024-09/${month.executionId}/gcp-billing-Manifest.json`,
    ]);

    const status = JSON.parse((await gcpAcquire('status', '--tenant', 'initech', '--json')).stdout);
    expect(status.gcpSources[0]).toMatchObject({
      watermarks: { '202409': '2024-09-20T08:00:00.000000Z' },
      months: [{ period: '2024-09', jobId: month.executionId, pagesDone: 1, rows: 3, done: true }],
    });
    expect(status.gcpSources[0].months[0].updatedAt).toEqual(expect.any(String));

    const again = JSON.parse((await gcpAcquire('run', '--tenant', 'initech', '--json')).stdout);
    expect(again.gcpPasses[0].report).toMatchObject({ changed: [], months: [] });
  });

  it('run --period takes only that invoice month; the other changed month waits for the next pass', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: GCP_SECRET }).resolves({ SecretString: keyJson });
    standIn.rows.push(row(3, '2024-10-02T08:00:00.000000Z'), {
      ...row(4, '2024-10-02T08:00:00.000000Z'),
      invoiceMonth: '202410',
    });
    const limited = JSON.parse(
      (await gcpAcquire('run', '--tenant', 'initech', '--period', '2024-10', '--json')).stdout,
    );
    expect(limited.gcpPasses[0].report.changed).toEqual(['202410']);
    expect(limited.gcpPasses[0].report.months.map((m: { period: string }) => m.period)).toEqual([
      '2024-10',
    ]);
    const next = JSON.parse((await gcpAcquire('run', '--tenant', 'initech', '--json')).stdout);
    expect(next.gcpPasses[0].report.changed).toEqual(['202409']);

    const bad = await gcpAcquire('run', '--tenant', 'initech', '--period', '2024-13');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--period must be yyyy-mm (got "2024-13")');
  });

  it('a key that cannot be parsed fails the run (exit 1) naming the table and the fix', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: GCP_SECRET }).resolves({ SecretString: '{}' });
    const result = await gcpAcquire('run', '--tenant', 'initech');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `GCP acquisition of tenant initech: 1 of 1 sources failed: ${TABLE}:`,
    );
    expect(result.stderr).toContain("store the service account's JSON key file");
  });

  it('a tenant with neither an Azure nor a GCP source is refused (exit 2), naming both', async () => {
    const result = await gcpAcquire('status', '--tenant', 'acme');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'no Azure export source is configured for tenant "acme" (configured: none)',
    );
    expect(result.stderr).toContain(
      'no GCP billing source is configured for tenant "acme" (configured: initech)',
    );
  });
});
