import type { BillingDedupConfig } from '../config';
import { GCP_ACQUISITION_ENV, gcpCursorPk, gcpSourceId } from '../../contract/gcp-acquisition';
import { GCP_BILLING_SOURCES_OUTPUT } from '../../contract/outputs';
import { resolveGcpSources } from '../gcp-billing-config';
import {
  prefixedScheduleName,
  tenantSchedules,
  type AcquisitionSpec,
} from './scheduled-acquisition';

/**
 * The Google Cloud billing acquisition (docs/gcp-acquisition.md) as a `ScheduledAcquisition` spec,
 * deployed when config `gcpBillingExports` names any table: the role writes only under each source's
 * own export folder (`<prefix>/<exportName>/`) and reads and writes only the sources' cursor items
 * (`ACQUIRE#gcp#<table>`).
 */
export const gcpAcquisitionSpec = (config: BillingDedupConfig): AcquisitionSpec => {
  const sources = resolveGcpSources(config.gcpBillingExports, config.exportSources);
  return {
    name: 'export-gcp',
    description: 'billing-dedup: reads Google Cloud billing export tables into the export bucket',
    entry: 'lambda/handlers/gcp-acquisition.ts',
    sourcesEnv: GCP_ACQUISITION_ENV.sources,
    sources,
    schedules: tenantSchedules(config.gcpBillingExports),
    scheduleName: (tenant) => prefixedScheduleName('gcp-', tenant),
    scheduleDescription: (tenant) => `billing-dedup: reads tenant ${tenant}'s GCP billing exports`,
    secrets: { sid: 'ReadGcpServiceAccountKeys' },
    cursors: {
      sid: 'GcpBillingCursors',
      // Each cursor item is written whole (PutItem): the watermarks and one item per month.
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
      partitionKeys: sources.map((source) => gcpCursorPk(gcpSourceId(source))),
    },
    writes: {
      sid: 'WriteGcpBillingFiles',
      listSid: 'ListGcpBillingFiles',
      // GetObject: the manifest already written is not written again (never a second delivery).
      actions: ['s3:PutObject', 's3:GetObject'],
      prefixes: [...new Set(sources.map((source) => `${source.prefix}/${source.exportName}/`))],
      nagReason:
        'File names carry the query job id and page number; writes are limited to the export folder of each ' +
        'configured billing table (gcpBillingExports → <prefix>/<exportName>/).',
    },
    invokeSid: 'InvokeGcpAcquisition',
    output: {
      id: GCP_BILLING_SOURCES_OUTPUT,
      description:
        'GCP billing sources (gcpBillingExports), as JSON (billing-dedup acquire status | run)',
    },
    alarmDescription:
      'A GCP billing pass failed (a key that cannot be read or parsed, Google refusing the token or the query, ' +
      'an unknown cost_type, BigQuery throttling beyond the pass, S3 or DynamoDB errors): read the function log ' +
      '(it names the table), fix, then `billing-dedup acquire run --tenant <t>` or wait for the next schedule; ' +
      'the pass resumes from its cursor.',
  };
};
