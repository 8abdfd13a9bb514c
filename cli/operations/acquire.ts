/**
 * `billing-dedup acquire`: the cursors of a tenant's acquisition sources (Azure exports, GCP billing
 * tables), and a pass now, through the same per-source passes as the scheduled functions
 * (core/acquisition/source-passes.ts), with the caller's credentials and no time limit.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { azureSourceId, type AzureExportSource } from '../../contract/azure-acquisition';
import { gcpSourceId, type GcpBillingSource } from '../../contract/gcp-acquisition';
import {
  AzureAcquisitionCursor,
  type StoredAzureCursor,
} from '../../lambda/adapters/azure-acquisition-cursor';
import { azureSourcePorts } from '../../lambda/adapters/azure-source-ports';
import { GcpAcquisitionCursor } from '../../lambda/adapters/gcp-acquisition-cursor';
import { gcpSourcePorts } from '../../lambda/adapters/gcp-source-ports';
import { secretsManagerReader } from '../../lambda/adapters/secrets-manager-reader';
import type { SourcePortsClients } from '../../lambda/adapters/source-ports-clients';
import {
  AZURE_SOURCE_PASSES,
  type AzureSourcePass,
} from '../../lambda/core/acquisition/azure-source-passes';
import {
  GCP_SOURCE_PASSES,
  type GcpSourcePass,
} from '../../lambda/core/acquisition/gcp-source-passes';
import { latestByMonth } from '../../lambda/core/acquisition/gcp-watermarks';
import { runSourcePasses } from '../../lambda/core/acquisition/source-passes';

export interface SourceCursor {
  sourceId: string;
  exportFolder: string;
  prefix: string;
  /** Undefined: no run copied yet. */
  cursor?: StoredAzureCursor;
}

export interface GcpMonthStatus {
  period: string;
  jobId: string;
  pagesDone: number;
  rows: number;
  /** The month's files and manifest are written (its execution is the planner's). */
  done: boolean;
  updatedAt?: string;
}

export interface GcpSourceCursor {
  sourceId: string;
  prefix: string;
  exportName: string;
  /** Per invoice month (`YYYYMM`), the latest export_time acquired. */
  watermarks: Record<string, string>;
  months: GcpMonthStatus[];
}

export interface AcquireClients {
  dynamo: DynamoDBClient;
  s3: S3Client;
  secretsManager: SecretsManagerClient;
}

export interface AcquireResources {
  ledgerTable: string;
  exportBucket: string;
}

/** What `acquire run` passes on: only this billing period (`YYYY-MM`) when given. */
export interface AcquireRunOptions {
  period?: string;
}

const portsClients = (
  clients: AcquireClients,
  resources: AcquireResources,
): SourcePortsClients => ({
  dynamo: clients.dynamo,
  s3: clients.s3,
  readSecret: secretsManagerReader(clients.secretsManager),
  ...resources,
});

export const azureCursors = async (
  dynamo: DynamoDBClient,
  ledgerTable: string,
  sources: readonly AzureExportSource[],
): Promise<SourceCursor[]> =>
  Promise.all(
    sources.map(async (source) => {
      const sourceId = azureSourceId(source);
      const cursor = await new AzureAcquisitionCursor({
        client: dynamo,
        ledgerTable,
        sourceId,
      }).readStored();
      return {
        sourceId,
        exportFolder: source.exportFolder,
        prefix: source.prefix,
        ...(cursor ? { cursor } : {}),
      };
    }),
  );

export const gcpCursors = async (
  dynamo: DynamoDBClient,
  ledgerTable: string,
  sources: readonly GcpBillingSource[],
): Promise<GcpSourceCursor[]> =>
  Promise.all(
    sources.map(async (source) => {
      const sourceId = gcpSourceId(source);
      const cursor = new GcpAcquisitionCursor({ client: dynamo, ledgerTable, sourceId });
      const [watermarks, months] = await Promise.all([
        cursor.readWatermarks(),
        cursor.readMonths(),
      ]);
      return {
        sourceId,
        prefix: source.prefix,
        exportName: source.exportName,
        watermarks: latestByMonth(watermarks),
        months: months.map((month) => ({
          period: month.period,
          jobId: month.jobId,
          pagesDone: month.pagesDone,
          rows: month.rows,
          done: month.done,
          ...(month.updatedAt ? { updatedAt: month.updatedAt } : {}),
        })),
      };
    }),
  );

export const runAzurePasses = (
  sources: readonly AzureExportSource[],
  clients: AcquireClients,
  resources: AcquireResources,
  options: AcquireRunOptions = {},
): Promise<AzureSourcePass[]> =>
  runSourcePasses(
    AZURE_SOURCE_PASSES,
    sources,
    azureSourcePorts(portsClients(clients, resources)),
    { exportBucket: resources.exportBucket, ...options },
  );

export const runGcpPasses = (
  sources: readonly GcpBillingSource[],
  clients: AcquireClients,
  resources: AcquireResources,
  options: AcquireRunOptions & {
    /** Local stand-ins of BigQuery and Google's token endpoint (the outputs file's endpoints). */
    endpoints?: { bigqueryEndpoint?: string; tokenEndpoint?: string };
  } = {},
): Promise<GcpSourcePass[]> => {
  const { endpoints, ...passOptions } = options;
  return runSourcePasses(
    GCP_SOURCE_PASSES,
    sources,
    gcpSourcePorts({ ...portsClients(clients, resources), ...endpoints }),
    { exportBucket: resources.exportBucket, ...passOptions },
  );
};
