import type { BillingDedupConfig } from '../config';
import {
  AZURE_ACQUISITION_ENV,
  azureCursorPk,
  azureSourceId,
} from '../../contract/azure-acquisition';
import { AZURE_EXPORT_SOURCES_OUTPUT } from '../../contract/outputs';
import { resolveAzureSources } from '../azure-export-config';
import { tenantSchedules, type AcquisitionSpec } from './scheduled-acquisition';

/**
 * The Azure export copier (docs/azure-acquisition.md) as a `ScheduledAcquisition` spec, deployed when
 * config `azureExports` names any export: the role writes under the tenants' export prefixes (the file
 * names come from the Azure run) and moves only the sources' cursor items.
 */
export const azureAcquisitionSpec = (config: BillingDedupConfig): AcquisitionSpec => {
  const sources = resolveAzureSources(config.azureExports, config.exportSources);
  return {
    name: 'export-azure',
    description: 'billing-dedup: copies Azure Cost Management export runs into the export bucket',
    entry: 'lambda/handlers/azure-acquisition.ts',
    importMetaUrl: true,
    sourcesEnv: AZURE_ACQUISITION_ENV.sources,
    sources,
    schedules: tenantSchedules(config.azureExports),
    scheduleName: (tenant) => tenant,
    scheduleDescription: (tenant) => `billing-dedup: copies tenant ${tenant}'s Azure exports`,
    secrets: { sid: 'ReadAzureClientSecrets' },
    cursors: {
      sid: 'AzureCopyCursors',
      actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      partitionKeys: sources.map((source) => azureCursorPk(azureSourceId(source))),
    },
    writes: {
      sid: 'WriteAzureCopies',
      listSid: 'ListAzureCopies',
      // GetObject: HEAD of a copied blob and the manifest already written (never a second delivery).
      actions: ['s3:PutObject', 's3:GetObject'],
      prefixes: [...new Set(sources.map((source) => `${source.prefix}/`))],
      nagReason:
        'Copied file names come from the Azure export run; writes are limited to the prefixes of the tenants ' +
        'with an Azure export (azureExports → exportSources).',
    },
    invokeSid: 'InvokeAzureAcquisition',
    output: {
      id: AZURE_EXPORT_SOURCES_OUTPUT,
      description:
        'Azure export sources (azureExports), as JSON (billing-dedup acquire status | run)',
    },
    alarmDescription:
      'An Azure export copy pass failed (a secret that cannot be read or parsed, Azure refusing the app, ' +
      'a blob rewritten during the copy, S3 or DynamoDB errors): read the function log (it names the source), ' +
      'fix, then `billing-dedup acquire run --tenant <t>` or wait for the next schedule; the pass resumes from its cursor.',
  };
};
