/**
 * The Google Cloud billing acquisition as a source-pass provider (`source-passes.ts`): a source is
 * one billing export table, its pass one pull (`gcp-billing-pull.ts`).
 */
import { gcpSourceId, type GcpBillingSource } from '../../../contract/gcp-acquisition';
import type { AcquisitionBucketPort } from './manifest-last';
import {
  pullGcpBilling,
  type BigQueryPort,
  type GcpCursorPort,
  type PullReport,
} from './gcp-billing-pull';
import type { PortsFactory, SourcePass, SourcePassProvider } from './source-passes';

export interface GcpSourcePorts {
  bigquery: BigQueryPort;
  bucket: AcquisitionBucketPort;
  cursor: GcpCursorPort;
}

export type GcpPortsFactory = PortsFactory<GcpBillingSource, GcpSourcePorts>;
export type GcpSourcePass = SourcePass<PullReport>;

export const GCP_SOURCE_PASSES: SourcePassProvider<GcpBillingSource, GcpSourcePorts, PullReport> = {
  name: 'GCP',
  sourceNoun: 'GCP billing source',
  sourceId: gcpSourceId,
  pass: (source, ports, { exportBucket, keepGoing, period }) =>
    pullGcpBilling(
      {
        table: source.table,
        location: source.location,
        bucket: exportBucket,
        prefix: source.prefix,
        exportName: source.exportName,
      },
      ports,
      { keepGoing, ...(period === undefined ? {} : { period }) },
    ),
};
