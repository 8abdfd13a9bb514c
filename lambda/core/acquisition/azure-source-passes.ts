/**
 * One copy pass per Azure export source of a tenant (the scheduled function and `billing-dedup acquire
 * run`): a source that fails does not stop the others, and is reported with its error; no time left
 * (`keepGoing`) skips the sources not started and ends a started pass before its next run.
 */
import { azureSourceId, type AzureExportSource } from '../../../contract/azure-acquisition';
import {
  copyAzureExport,
  type AzureContainerPort,
  type AzureCursorPort,
  type CopyReport,
  type ExportBucketPort,
} from './azure-export-copy';

export interface AzureSourcePorts {
  container: AzureContainerPort;
  bucket: ExportBucketPort;
  cursor: AzureCursorPort;
}

/** The ports of one source for this run (its secret read now: a rotated secret needs no redeploy). */
export type AzurePortsFactory = (source: AzureExportSource) => Promise<AzureSourcePorts>;

export interface SourcePass {
  sourceId: string;
  report?: CopyReport;
  /** The pass did not start: no time was left. */
  skipped?: boolean;
  error?: string;
}

/** The tenant's sources; a tenant with none is refused naming the configured ones. */
export const sourcesOfTenant = (
  sources: readonly AzureExportSource[],
  tenant: string | undefined,
): AzureExportSource[] => {
  const mine = sources.filter((source) => source.tenant === tenant);
  if (mine.length === 0)
    throw new Error(
      `no Azure export source is configured for tenant ${JSON.stringify(tenant)} ` +
        `(configured: ${[...new Set(sources.map((s) => s.tenant))].join(', ') || 'none'})`,
    );
  return mine;
};

export const copySources = async (
  sources: readonly AzureExportSource[],
  portsFor: AzurePortsFactory,
  options: { exportBucket: string; keepGoing?: () => boolean },
): Promise<SourcePass[]> => {
  const keepGoing = options.keepGoing ?? (() => true);
  const passes: SourcePass[] = [];
  for (const source of sources) {
    const sourceId = azureSourceId(source);
    if (!keepGoing()) {
      passes.push({ sourceId, skipped: true });
      continue;
    }
    try {
      const report = await copyAzureExport(
        { exportFolder: source.exportFolder, bucket: options.exportBucket, prefix: source.prefix },
        await portsFor(source),
        { keepGoing },
      );
      passes.push({ sourceId, report });
    } catch (error) {
      passes.push({ sourceId, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return passes;
};

/** The error naming every failed source, or undefined when none failed. */
export const failedSourcesError = (
  tenant: string,
  passes: readonly SourcePass[],
): Error | undefined => {
  const failed = passes.filter((pass) => pass.error !== undefined);
  return failed.length === 0
    ? undefined
    : new Error(
        `Azure acquisition of tenant ${tenant}: ${failed.length} of ${passes.length} sources failed: ` +
          failed.map((pass) => `${pass.sourceId}: ${pass.error}`).join('; '),
      );
};
