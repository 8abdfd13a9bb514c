/**
 * One pull per Google Cloud billing source of a tenant (the scheduled function; later `acquire run`):
 * a source that fails does not stop the others and is reported with its error; no time left
 * (`keepGoing`) skips the sources not started and ends a started pull before its next month.
 */
import { gcpSourceId, type GcpBillingSource } from '../../../contract/gcp-acquisition';
import type { AcquisitionBucketPort } from './manifest-last';
import {
  pullGcpBilling,
  type BigQueryPort,
  type GcpCursorPort,
  type PullReport,
} from './gcp-billing-pull';

export interface GcpSourcePorts {
  bigquery: BigQueryPort;
  bucket: AcquisitionBucketPort;
  cursor: GcpCursorPort;
}

/** The ports of one source for this pass (its key read now: a rotated key needs no redeploy). */
export type GcpPortsFactory = (source: GcpBillingSource) => Promise<GcpSourcePorts>;

export interface GcpSourcePass {
  sourceId: string;
  report?: PullReport;
  skipped?: boolean;
  error?: string;
}

export const pullSources = async (
  sources: readonly GcpBillingSource[],
  portsFor: GcpPortsFactory,
  options: { exportBucket: string; keepGoing?: () => boolean },
): Promise<GcpSourcePass[]> => {
  const keepGoing = options.keepGoing ?? (() => true);
  const passes: GcpSourcePass[] = [];
  for (const source of sources) {
    const sourceId = gcpSourceId(source);
    if (!keepGoing()) {
      passes.push({ sourceId, skipped: true });
      continue;
    }
    try {
      const report = await pullGcpBilling(
        {
          table: source.table,
          location: source.location,
          bucket: options.exportBucket,
          prefix: source.prefix,
          exportName: source.exportName,
        },
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
