/**
 * The Google Cloud billing export sources as they cross from lib/ (config `gcpBillingExports`, resolved
 * against the tenant's `exportSources` prefix) to the acquisition function's environment
 * (docs/gcp-acquisition.md). The export bucket is ENV.exportBucketName.
 */
import { acquisitionCursorPk, type AcquisitionEvent } from './acquisition';

export const GCP_ACQUISITION_ENV = {
  /** JSON list of `GcpBillingSource`. */
  sources: 'GCP_BILLING_SOURCES',
} as const;

export interface GcpBillingSource {
  tenant: string;
  /** The project the query jobs run (and are billed) in. */
  jobProject: string;
  /** `<project>.<dataset>.<table>` of the billing export (standard or detailed usage cost table). */
  table: string;
  /** The dataset's location (`US`, `EU`, `europe-west1`, …): jobs run there. */
  location: string;
  /** Secrets Manager ARN of the service-account key JSON. */
  secretArn: string;
  /** The tenant's `exportSources` prefix, without its trailing `/`. */
  prefix: string;
  /** The export name under the prefix (the planner's `<export-name>` folder). */
  exportName: string;
}

export type GcpAcquisitionEvent = AcquisitionEvent;

/** `<project>.<dataset>.<table>`: project ids may have `-` (and a `domain:` prefix), the rest not. */
export const BIGQUERY_TABLE_PATTERN =
  /^([a-z][a-z0-9.:-]{4,61}[a-z0-9])\.([A-Za-z0-9_]{1,1024})\.([A-Za-z0-9_$-]{1,1024})$/;

/** The cursor's name for a source: the billing table it reads. */
export const gcpSourceId = (source: Pick<GcpBillingSource, 'table'>): string => source.table;

export const gcpCursorPk = (sourceId: string): string => acquisitionCursorPk('gcp', sourceId);

export const parseGcpSourcesEnv = (text: string | undefined): GcpBillingSource[] => {
  if (text === undefined || text.trim() === '') return [];
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed))
    throw new Error(`${GCP_ACQUISITION_ENV.sources} must be a JSON list of GCP billing sources`);
  return parsed as GcpBillingSource[];
};
