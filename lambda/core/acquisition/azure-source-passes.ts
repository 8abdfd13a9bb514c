/**
 * The Azure export copier as a source-pass provider (`source-passes.ts`): a source is one Cost
 * Management export's folder, its pass one copy pass (`azure-export-copy.ts`).
 */
import { azureSourceId, type AzureExportSource } from '../../../contract/azure-acquisition';
import {
  copyAzureExport,
  type AzureContainerPort,
  type AzureCursorPort,
  type CopyReport,
  type ExportBucketPort,
} from './azure-export-copy';
import type { PortsFactory, SourcePass, SourcePassProvider } from './source-passes';

export interface AzureSourcePorts {
  container: AzureContainerPort;
  bucket: ExportBucketPort;
  cursor: AzureCursorPort;
}

export type AzurePortsFactory = PortsFactory<AzureExportSource, AzureSourcePorts>;
export type AzureSourcePass = SourcePass<CopyReport>;

export const AZURE_SOURCE_PASSES: SourcePassProvider<
  AzureExportSource,
  AzureSourcePorts,
  CopyReport
> = {
  name: 'Azure',
  sourceNoun: 'Azure export source',
  sourceId: azureSourceId,
  pass: (source, ports, { exportBucket, keepGoing, period }) =>
    copyAzureExport(
      { exportFolder: source.exportFolder, bucket: exportBucket, prefix: source.prefix },
      ports,
      { keepGoing, ...(period === undefined ? {} : { period }) },
    ),
};
