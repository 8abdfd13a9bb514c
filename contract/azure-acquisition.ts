/**
 * The Azure export sources as they cross from lib/ (config `azureExports`, resolved against the
 * tenant's `exportSources` prefix) to the acquisition function's environment, and the event a
 * schedule or `billing-dedup acquire run` sends it; the export bucket is ENV.exportBucketName (docs/azure-acquisition.md).
 */
import { acquisitionCursorPk, type AcquisitionEvent } from './acquisition';

export const AZURE_ACQUISITION_ENV = {
  /** JSON list of `AzureExportSource`. */
  sources: 'AZURE_EXPORT_SOURCES',
} as const;

/** The cursor item's partition key of a source (lambda/adapters/azure-acquisition-cursor.ts). */
export const azureCursorPk = (sourceId: string): string => acquisitionCursorPk('azure', sourceId);

export interface AzureExportSource {
  tenant: string;
  /** `https://<account>.blob.core.windows.net` */
  storageAccountUrl: string;
  container: string;
  /** `<rootFolderPath>/<export name>/`: the export's folder in the container. */
  exportFolder: string;
  /** Secrets Manager ARN of `{"tenantId", "clientId", "clientSecret"}`. */
  secretArn: string;
  /** The tenant's `exportSources` prefix, without its trailing `/`. */
  prefix: string;
}

/** What the schedule (and `acquire run`) sends: one pass over every Azure source of the tenant. */
export type AzureAcquisitionEvent = AcquisitionEvent;

/** The cursor's name for a source: `<storage account host>/<container>/<export folder>`. */
export const azureSourceId = (
  source: Pick<AzureExportSource, 'storageAccountUrl' | 'container' | 'exportFolder'>,
): string =>
  `${new URL(source.storageAccountUrl).host}/${source.container}/${source.exportFolder.replace(/\/$/, '')}`;

export const parseAzureSourcesEnv = (text: string | undefined): AzureExportSource[] => {
  if (text === undefined || text.trim() === '') return [];
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed))
    throw new Error(`${AZURE_ACQUISITION_ENV.sources} must be a JSON list of Azure export sources`);
  return parsed as AzureExportSource[];
};
