/**
 * Where an Azure export run lands in our export bucket: the AWS Data Exports layout the planner already
 * reads (`exports/manifest.ts`), under the tenant's `exportSources` prefix, one folder per run:
 *
 *   <prefix>/<export-name>/data/BILLING_PERIOD=YYYY-MM/<runId>/<blob file name>
 *   <prefix>/<export-name>/metadata/BILLING_PERIOD=YYYY-MM/<runId>/<export-name>-Manifest.json
 *
 * The run becomes an export execution like any other (executionId = runId); its manifest, written last,
 * is what the planner reacts to.
 */
import { fail } from '../errors';
import { REQUIRED_FOCUS_COLUMNS, manifestFor, type BuiltManifest } from '../exports/manifest';
import type { AzureExportRun } from './azure-manifest';

/** The dataset the readers book: Cost Management's FOCUS cost and usage details. */
export const FOCUS_DATASET = 'FocusCost';

/** FOCUS columns the ledger reads (each file's own header is checked again by the chunk worker). */
const FOCUS_COLUMNS = [...REQUIRED_FOCUS_COLUMNS, 'SubAccountId', 'ServiceName', 'ProviderName'];

export interface AzureTarget {
  /** The planner-ready manifest: keys, document and JSON text. */
  manifest: BuiltManifest;
  /** Each blob of the run with its target key, in manifest order. */
  files: { blobName: string; byteCount: number; key: string }[];
}

const fileNameOf = (blobName: string): string => blobName.slice(blobName.lastIndexOf('/') + 1);

/**
 * The run's target keys and manifest. `prefix` is the tenant's `exportSources` prefix without its
 * trailing `/`. Refused (a ValidationError naming the fix): a dataset other than FOCUS, and two blobs
 * with one file name (the target folder is flat).
 */
export const azureTarget = (bucket: string, prefix: string, run: AzureExportRun): AzureTarget => {
  if (run.datasetType.toLowerCase() !== FOCUS_DATASET.toLowerCase())
    fail(
      'invalid-field',
      'exportConfig.type',
      `${run.datasetType} is not read: set the export's type of data to "Cost and usage details (FOCUS)" (${FOCUS_DATASET})`,
    );
  const names = run.blobs.map((blob) => fileNameOf(blob.name));
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined)
    fail('invalid-field', 'blobs', `two blobs of the run are named ${repeated}`);
  const manifest = manifestFor({
    bucket,
    prefix,
    exportName: run.exportName,
    billingPeriod: run.period,
    executionId: run.runId,
    exportArn: run.resourceId ?? `azure-export/${run.exportName}`,
    columns: FOCUS_COLUMNS,
    dataFileNames: names,
    manifestInExecutionFolder: true,
  });
  return {
    manifest,
    files: run.blobs.map((blob, index) => ({
      blobName: blob.name,
      byteCount: blob.byteCount,
      key: manifest.dataFileKeys[index],
    })),
  };
};
