import { CfnOutput } from 'aws-cdk-lib';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import {
  ARCHIVE_SPOOL_OUTPUTS,
  EXPORT_CHUNKS_OUTPUTS,
  EXPORT_DELIVERIES_OUTPUTS,
  STACK_OUTPUTS,
  STATELESS_OUTPUTS,
  streamOutputs,
  TENANT_STACKS_OUTPUT,
} from '../../contract/outputs';
import {
  ALERT_STREAM,
  COST_STREAM,
  STREAM_DEFINITIONS,
  type StreamName,
} from '../../contract/streams';
import type { BillingDedupConfig } from '../config';
import type { QueueConsumer } from '../constructs/queue-consumer';
import type { ExportPipelines } from './export-pipelines';

export interface StatelessOutputsProps {
  readonly config: BillingDedupConfig;
  readonly streamTopics: Readonly<Partial<Record<StreamName, sns.ITopic>>>;
  /** Each stream's pipeline, in STREAM_DEFINITIONS order. */
  readonly pipelines: readonly QueueConsumer[];
  readonly exports: ExportPipelines;
  readonly archiveSpool: QueueConsumer;
  readonly exportBucketName: string;
  readonly notificationsTopic: sns.ITopic;
  readonly opsTopic: sns.ITopic;
  readonly tenantStackNames: readonly string[];
  readonly dlqOperatorRoleArn: string;
  readonly dashboardName: string;
}

const TOPIC_DESCRIPTIONS: Record<StreamName, string> = {
  [COST_STREAM]: 'Publish cost events here',
  [ALERT_STREAM]: 'Publish budget/anomaly alerts here (AWS Budgets, Cost Anomaly Detection)',
};

/**
 * The stateless stack's outputs (ids from contract/outputs.ts; no exports: the CLI and tools read
 * them by stack name). Added to `scope` in the order the stack has always had them.
 */
export function addStatelessOutputs(scope: Construct, props: StatelessOutputsProps): void {
  const { config } = props;
  const out = (id: string, value: string, description: string) =>
    new CfnOutput(scope, id, { value, description });
  const pipelineOutputs = (
    ids: Record<'queueUrl' | 'queueArn' | 'dlqUrl' | 'dlqArn' | 'consumerFunctionName', string>,
    pipeline: QueueConsumer,
    label: string,
  ) => {
    out(ids.queueUrl, pipeline.queue.queueUrl, `${label} source queue`);
    out(ids.queueArn, pipeline.queue.queueArn, `${label} source queue ARN`);
    out(ids.dlqUrl, pipeline.deadLetterQueue.queueUrl, `${label} dead-letter queue`);
    out(ids.dlqArn, pipeline.deadLetterQueue.queueArn, `${label} dead-letter queue ARN`);
    out(
      ids.consumerFunctionName,
      pipeline.consumer.fn.functionName,
      `Consumer of the ${label.toLowerCase()} queue`,
    );
  };
  out(STATELESS_OUTPUTS.stage, config.stage, 'Deployment stage');
  for (const [index, stream] of STREAM_DEFINITIONS.entries()) {
    const ids = streamOutputs(stream.name);
    const topicArn = props.streamTopics[stream.name]?.topicArn;
    if (topicArn) out(ids.topicArn, topicArn, TOPIC_DESCRIPTIONS[stream.name]);
    if (stream.name === COST_STREAM) {
      out(STATELESS_OUTPUTS.costEventsStreamKind, config.costStreamKind, 'fifo or standard');
      out(
        STATELESS_OUTPUTS.lateChargePolicy,
        config.lateChargePolicy,
        'What a charge for a closed billing period does: roll-forward or reject',
      );
    }
    pipelineOutputs(ids, props.pipelines[index], stream.label);
  }
  const { deliveries, chunks, deliveriesTopic } = props.exports;
  out(
    STACK_OUTPUTS.exportBucketName,
    props.exportBucketName,
    'Billing export bucket (point AWS Data Exports here)',
  );
  out(
    STATELESS_OUTPUTS.exportSources,
    JSON.stringify(config.exportSources),
    'Tenant of each export bucket prefix (exportSources), as JSON (billing-dedup export put checks --prefix)',
  );
  out(
    EXPORT_DELIVERIES_OUTPUTS.topicArn,
    deliveriesTopic.topicArn,
    'Manifest notifications of the export bucket',
  );
  for (const [ids, pipeline, label] of [
    [EXPORT_DELIVERIES_OUTPUTS, deliveries, 'Export deliveries'],
    [EXPORT_CHUNKS_OUTPUTS, chunks, 'Export chunks'],
  ] as const) {
    pipelineOutputs(ids, pipeline, label);
  }
  out(
    STATELESS_OUTPUTS.notificationsTopicArn,
    props.notificationsTopic.topicArn,
    'Subscribe here to receive one notification per alert',
  );
  out(STATELESS_OUTPUTS.opsTopicArn, props.opsTopic.topicArn, 'Alarm notifications');
  if (props.tenantStackNames.length > 0)
    out(
      TENANT_STACKS_OUTPUT,
      JSON.stringify(props.tenantStackNames),
      'The stacks of the tenants’ cost-events topics, as JSON (billing-dedup publish --tenant reads their outputs)',
    );
  out(
    STATELESS_OUTPUTS.dlqOperatorRoleArn,
    props.dlqOperatorRoleArn,
    'Assume this role to peek and redrive the DLQs (billing-dedup dlq …)',
  );
  out(STATELESS_OUTPUTS.dashboardName, props.dashboardName, 'CloudWatch dashboard of this stage');
  pipelineOutputs(ARCHIVE_SPOOL_OUTPUTS, props.archiveSpool, 'Archive spool');
}
