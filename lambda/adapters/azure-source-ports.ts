/**
 * The ports of one Azure export source: the customer's container with the tenant's credential (its
 * secret read now), our export bucket, the source's cursor item.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { ContainerClient } from '@azure/storage-blob';
import { azureSourceId } from '../../contract/azure-acquisition';
import type { AzurePortsFactory } from '../core/acquisition/azure-source-passes';
import { AzureAcquisitionCursor } from './azure-acquisition-cursor';
import { AzureBlobContainer } from './azure-blob-container';
import { azureCredentialFor, type SecretReader } from './azure-credentials';
import { AzureExportBucket } from './azure-export-bucket';

export const azureSourcePorts =
  (options: {
    dynamo: DynamoDBClient;
    s3: S3Client;
    readSecret: SecretReader;
    ledgerTable: string;
    exportBucket: string;
  }): AzurePortsFactory =>
  async (source) => {
    const credential = await azureCredentialFor(options.readSecret, source.secretArn);
    const container = new AzureBlobContainer(
      new ContainerClient(`${source.storageAccountUrl}/${source.container}`, credential),
    );
    return {
      container,
      bucket: new AzureExportBucket(options.s3, options.exportBucket, container),
      cursor: new AzureAcquisitionCursor({
        client: options.dynamo,
        ledgerTable: options.ledgerTable,
        sourceId: azureSourceId(source),
      }),
    };
  };
