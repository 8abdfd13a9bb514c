import {
  ARCHIVE_SPOOL,
  EXPORT_STREAMS,
  STREAMS,
  STREAM_NAMES,
  type StreamName,
  streamNamed,
} from './streams';

/** CloudFormation output ids of the stateful stack (tables and keys). */
export const STATEFUL_OUTPUTS = {
  dedupTableName: 'DedupTableName',
  ledgerTableName: 'LedgerTableName',
  dataKeyArn: 'DataKeyArn',
  messagingKeyArn: 'MessagingKeyArn',
  /** The role `billing-dedup period close | reopen` and `charge void` run under. */
  periodCloserRoleArn: 'PeriodCloserRoleArn',
  /** The evidence archive (every consumed message, as received, with its outcome). */
  archiveBucketName: 'ArchiveBucketName',
} as const;

/** Stack-wide output ids of the stateless stack; each stream adds its own (`streamOutputs`). */
export const STATELESS_OUTPUTS = {
  stage: 'Stage',
  costEventsStreamKind: 'CostEventsStreamKind',
  /** `roll-forward` or `reject`: what `charge void` does in a closed period. */
  lateChargePolicy: 'LateChargePolicy',
  notificationsTopicArn: 'NotificationsTopicArn',
  opsTopicArn: 'OpsTopicArn',
  dlqOperatorRoleArn: 'DlqOperatorRoleArn',
  dashboardName: 'DashboardName',
  /** The stage's `exportSources` as JSON: which tenant owns which prefix (`export put` checks `--prefix`). */
  exportSources: 'ExportSources',
} as const;

/** Only with `tenants` configured: each tenant's cost-events topic ARN, as JSON `{ "<tenant>": "<arn>" }`. */
export const TENANT_TOPICS_OUTPUT = 'CostEventsTenantTopicArns';

/** Only with `azureExports` configured: the Azure export sources (contract/azure-acquisition.ts) as JSON. */
export const AZURE_EXPORT_SOURCES_OUTPUT = 'AzureExportSources';
/** Only with `gcpBillingExports` configured: the GCP billing sources (contract/gcp-acquisition.ts) as JSON. */
export const GCP_BILLING_SOURCES_OUTPUT = 'GcpBillingSources';

/** Every output id: the stacks write them, the CLI and the local run read them. */
export const STACK_OUTPUTS = {
  ...STATEFUL_OUTPUTS,
  ...STATELESS_OUTPUTS,
  exportBucketName: 'ExportBucketName',
} as const;

/** Output ids of the topic, queues and consumer of the stream with this output prefix. */
const outputsOf = (prefix: string) => ({
  topicArn: `${prefix}TopicArn`,
  queueUrl: `${prefix}QueueUrl`,
  queueArn: `${prefix}QueueArn`,
  dlqUrl: `${prefix}DlqUrl`,
  dlqArn: `${prefix}DlqArn`,
  consumerFunctionName: `${prefix}ConsumerFunctionName`,
});

/** Output ids of one stream's topic, queues and consumer. */
export const streamOutputs = (stream: StreamName) => {
  const prefix = streamNamed(stream).outputPrefix;
  return {
    topicArn: `${prefix}TopicArn`,
    queueUrl: `${prefix}QueueUrl`,
    queueArn: `${prefix}QueueArn`,
    dlqUrl: `${prefix}DlqUrl`,
    dlqArn: `${prefix}DlqArn`,
    consumerFunctionName: `${prefix}ConsumerFunctionName`,
  } as const;
};

export const COST_OUTPUTS = streamOutputs(STREAMS.costEvents.name);
export const ALERT_OUTPUTS = streamOutputs(STREAMS.budgetAlerts.name);

/** The export pipeline's outputs: the chunk queue has no topic, so no `topicArn` output. */
export const EXPORT_DELIVERIES_OUTPUTS = outputsOf(EXPORT_STREAMS.exportDeliveries.outputPrefix);
const { topicArn: _noChunkTopic, ...chunkOutputs } = outputsOf(
  EXPORT_STREAMS.exportChunks.outputPrefix,
);
export const EXPORT_CHUNKS_OUTPUTS = chunkOutputs;

/** The archive spool's outputs (no topic: the consumers send into it). */
const { topicArn: _noSpoolTopic, ...spoolOutputs } = outputsOf(ARCHIVE_SPOOL.outputPrefix);
export const ARCHIVE_SPOOL_OUTPUTS = spoolOutputs;

/** Every output id the stateless stack writes. */
export const statelessOutputIds = (): string[] => [
  ...Object.values(STATELESS_OUTPUTS),
  ...STREAM_NAMES.flatMap((stream) => Object.values(streamOutputs(stream))),
  STACK_OUTPUTS.exportBucketName,
  ...Object.values(EXPORT_DELIVERIES_OUTPUTS),
  ...Object.values(EXPORT_CHUNKS_OUTPUTS),
  ...Object.values(ARCHIVE_SPOOL_OUTPUTS),
];

/**
 * Only with `tenants`: the stateless stack's list of its tenant stacks' names, as JSON (each tenant
 * stack outputs TENANT_TOPICS_OUTPUT for its own tenants; the CLI reads them all).
 */
export const TENANT_STACKS_OUTPUT = 'CostEventsTenantStacks';

/** Names of the values the stateless stack exports for its tenant stacks (in every configuration). */
export const tenantStackImports = (statelessStackName: string) => ({
  costQueueArn: `${statelessStackName}-cost-queue-arn`,
  costDlqArn: `${statelessStackName}-cost-dlq-arn`,
  opsTopicArn: `${statelessStackName}-ops-topic-arn`,
});
