/**
 * The ports of one Azure export source: the customer's container with the tenant's credential (its
 * secret read now), our export bucket, the source's cursor item.
 */
import { ContainerClient } from '@azure/storage-blob';
import { azureSourceId } from '../../contract/azure-acquisition';
import type { AzurePortsFactory } from '../core/acquisition/azure-source-passes';
import { AzureAcquisitionCursor } from './azure-acquisition-cursor';
import { AzureBlobContainer } from './azure-blob-container';
import { azureCredentialFor } from './azure-credentials';
import { AzureExportBucket } from './azure-export-bucket';
import type { SourcePortsClients } from './source-ports-clients';

export const azureSourcePorts =
  (options: SourcePortsClients): AzurePortsFactory =>
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
