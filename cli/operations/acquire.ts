/**
 * `billing-dedup acquire`: the cursors of a tenant's Azure export sources, and a copy pass now, through
 * the same per-source passes as the scheduled function (core/acquisition/source-passes.ts), with
 * the caller's credentials and no time limit.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { azureSourceId, type AzureExportSource } from '../../contract/azure-acquisition';
import {
  AzureAcquisitionCursor,
  type StoredAzureCursor,
} from '../../lambda/adapters/azure-acquisition-cursor';
import { azureSourcePorts } from '../../lambda/adapters/azure-source-ports';
import { secretsManagerReader } from '../../lambda/adapters/secrets-manager-reader';
import {
  AZURE_SOURCE_PASSES,
  type AzurePortsFactory,
  type AzureSourcePass,
} from '../../lambda/core/acquisition/azure-source-passes';
import { runSourcePasses } from '../../lambda/core/acquisition/source-passes';

export interface SourceCursor {
  sourceId: string;
  exportFolder: string;
  prefix: string;
  /** Undefined: no run copied yet. */
  cursor?: StoredAzureCursor;
}

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

export const runAzurePasses = (
  sources: readonly AzureExportSource[],
  clients: { dynamo: DynamoDBClient; s3: S3Client; secretsManager: SecretsManagerClient },
  resources: { ledgerTable: string; exportBucket: string },
  portsFor: AzurePortsFactory = azureSourcePorts({
    dynamo: clients.dynamo,
    s3: clients.s3,
    readSecret: secretsManagerReader(clients.secretsManager),
    ...resources,
  }),
): Promise<AzureSourcePass[]> =>
  runSourcePasses(AZURE_SOURCE_PASSES, sources, portsFor, { exportBucket: resources.exportBucket });
