/**
 * The local run's Google Cloud billing source: the BigQuery stand-in (local/emulators/) holding one
 * invoice month of a dedicated tenant, rows shaped like the documented getQueryResults example
 * (test/fixtures/gcp, sources and licences in its README), a service-account key of our own that the
 * stand-in's token endpoint verifies, and the ports of the real acquisition (`gcpSourcePorts`) pointed
 * at the stand-in, the local S3 and DynamoDB Local.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Big from 'big.js';
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose';
import type { GcpBillingSource } from '../../contract/gcp-acquisition';
import { BigQueryRest, type BigQueryStats } from '../../lambda/adapters/bigquery-rest';
import { gcpSourcePorts } from '../../lambda/adapters/gcp-source-ports';
import type { SourcePortsClients } from '../../lambda/adapters/source-ports-clients';
import type { GcpPortsFactory } from '../../lambda/core/acquisition/gcp-source-passes';
import type { BigQueryCell, BigQueryRow } from '../../lambda/core/acquisition/gcp-billing-rows';
import { MONTH_COLUMNS } from '../../lambda/core/acquisition/gcp-billing-sql';
import {
  cellText,
  startBigQueryStandIn,
  type BigQueryFault,
  type BigQueryStandIn,
  type StandInRow,
} from '../emulators/bigquery-stand-in';

export const GCP_TENANT = 'acq-gcp';
export const GCP_PERIOD = '2024-09';
const INVOICE_MONTH = GCP_PERIOD.replace('-', '');
const CLIENT_EMAIL = 'billing-reader@acq-gcp-billing.iam.gserviceaccount.com';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:acq-gcp-bigquery';
const FIXTURE = path.resolve(
  __dirname,
  '..',
  '..',
  'test',
  'fixtures',
  'gcp',
  'get-query-results-response.json',
);
/** Usage rows of the month (the fixture's usage row, varied); plus the fixture's tax row. */
const USAGE_ROWS = 24;
/** Rows per getQueryResults page locally (the pull asks for 10,000): the month is read in pages. */
export const LOCAL_PAGE_ROWS = 10;

/**
 * Faults of one pass, in request order: the change probe is throttled (429, Retry-After 1 s), its
 * retry, its jobs.get and the month's jobs.insert are answered, then the first results page is cut
 * off mid-body (the client retries it).
 */
export const GCP_PASS_FAULTS: readonly BigQueryFault[] = [
  { kind: 'throttle', status: 429, retryAfterSeconds: 1 },
  { kind: 'none' },
  { kind: 'none' },
  { kind: 'none' },
  { kind: 'drop-mid-page' },
];

const column = (name: (typeof MONTH_COLUMNS)[number]) => MONTH_COLUMNS.indexOf(name);

const fixtureRows = (): BigQueryRow[] =>
  (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { rows: BigQueryRow[] }).rows;

const withCells = (cells: BigQueryCell[], changes: Record<number, BigQueryCell['v']>) =>
  cells.map((cell, index) => (index in changes ? { v: changes[index] } : cell));

/** The month: the fixture's usage row scaled per hour and project, its credits on every other row. */
export const gcpMonthRows = (): StandInRow[] => {
  const [usage, tax] = fixtureRows();
  const cost = cellText(usage.f[column('cost')]);
  const credits = usage.f[column('credit_amounts')].v as BigQueryCell[];
  const rows: StandInRow[] = [];
  for (let i = 0; i < USAGE_ROWS; i++) {
    const start = new Date(Date.UTC(2024, 8, 1 + (i % 20), i % 24));
    const end = new Date(start.getTime() + 3_600_000);
    const scale = new Big(i + 1);
    const early = i < USAGE_ROWS / 2;
    rows.push({
      partitionDay: early ? '2024-09-20' : '2024-10-01',
      exportTime: early ? '2024-09-20T08:00:00.000000Z' : '2024-10-01T08:00:00.000000Z',
      invoiceMonth: INVOICE_MONTH,
      cells: withCells(usage.f, {
        [column('project_id')]: i % 3 === 0 ? 'acq-gcp-data' : 'acq-gcp-web',
        [column('usage_start_time')]: start.toISOString().replace('Z', '000Z'),
        [column('usage_end_time')]: end.toISOString().replace('Z', '000Z'),
        [column('cost')]: scale.times(cost).toString(),
        [column('credit_amounts')]:
          i % 2 === 0
            ? credits.map((credit) => ({ v: scale.times(cellText(credit)).toString() }))
            : [],
      }),
    });
  }
  rows.push({
    partitionDay: '2024-10-02',
    exportTime: '2024-10-02T05:00:00.000000Z',
    invoiceMonth: INVOICE_MONTH,
    cells: tax.f,
  });
  return rows;
};

/** The correction of the second pass: a later partition books an adjustment to the month. */
export const gcpCorrectionRow = (): StandInRow => {
  const [usage] = fixtureRows();
  return {
    partitionDay: '2024-10-05',
    exportTime: '2024-10-05T06:00:00.000000Z',
    invoiceMonth: INVOICE_MONTH,
    cells: withCells(usage.f, {
      [column('project_id')]: 'acq-gcp-web',
      [column('cost_type')]: 'adjustment',
      [column('cost')]: '-1.2345',
      [column('credit_amounts')]: [],
    }),
  };
};

export interface LocalGcpSource {
  standIn: BigQueryStandIn;
  source: GcpBillingSource;
  /** The ports of the real acquisition over the stand-in; `lastStats` are those of the latest pass. */
  portsFor(clients: SourcePortsClients): GcpPortsFactory;
  lastStats(): BigQueryStats | undefined;
  stop(): Promise<void>;
}

export const startLocalGcpSource = async (prefix: string): Promise<LocalGcpSource> => {
  const keys = await generateKeyPair('RS256', { extractable: true });
  const privateKey = await exportPKCS8(keys.privateKey);
  const standIn = await startBigQueryStandIn({
    clock: Date.now,
    publicKeyPem: await exportSPKI(keys.publicKey),
    clientEmail: CLIENT_EMAIL,
  });
  standIn.rows.push(...gcpMonthRows());
  const secret = JSON.stringify({
    type: 'service_account',
    client_email: CLIENT_EMAIL,
    private_key: privateKey,
    private_key_id: 'local-acq-gcp',
  });
  let stats: BigQueryStats | undefined;
  return {
    standIn,
    source: {
      tenant: GCP_TENANT,
      jobProject: 'acq-gcp-billing',
      table: 'acq-gcp-billing.billing_export.gcp_billing_export_v1_01A2B3_C4D5E6_F7A8B9',
      location: 'US',
      secretArn: SECRET_ARN,
      prefix,
      exportName: 'gcp-billing',
    },
    portsFor: (clients) => {
      const real = gcpSourcePorts({
        ...clients,
        readSecret: (arn) =>
          arn === SECRET_ARN
            ? Promise.resolve(secret)
            : Promise.reject(new Error(`no local secret ${arn}`)),
        bigqueryEndpoint: standIn.endpoint,
        tokenEndpoint: standIn.tokenEndpoint,
      });
      return async (source) => {
        const ports = await real(source);
        const bigquery = ports.bigquery;
        if (bigquery instanceof BigQueryRest) stats = bigquery.stats;
        return {
          ...ports,
          bigquery: {
            queryAll: (sql, location) => bigquery.queryAll(sql, location),
            insertJob: (job, sql) => bigquery.insertJob(job, sql),
            page: (job, token, maxResults) =>
              bigquery.page(job, token, Math.min(maxResults, LOCAL_PAGE_ROWS)),
          },
        };
      };
    },
    lastStats: () => stats,
    stop: () => standIn.stop(),
  };
};
