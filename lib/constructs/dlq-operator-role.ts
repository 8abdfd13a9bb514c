import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import type { QueueConsumer } from './queue-consumer';

export interface DlqOperatorRoleProps {
  readonly stage: string;
}

/**
 * The role that peeks and redrives the DLQs (`billing-dedup dlq peek|redrive`, docs/operations.md
 * "Permissions"), assumable from the account. With `redriveOperators` it is, with them, the only
 * principal that may send into a source queue directly (every queue denies everyone else, see
 * QueueConsumer). The queues it may touch are known only once every pipeline exists: `allowOperations`.
 */
export class DlqOperatorRole extends iam.Role {
  constructor(scope: Construct, id: string, props: DlqOperatorRoleProps) {
    super(scope, id, {
      assumedBy: new iam.AccountRootPrincipal(),
      description: `billing-dedup ${props.stage}: peek and redrive the dead-letter queues (billing-dedup dlq peek, dlq redrive)`,
    });
  }

  /**
   * Read and move the pipelines' DLQs, send into their source queues (a message move task sends
   * with the caller's permissions), the messaging key for both, and the stacks' outputs for discovery.
   */
  allowOperations(
    pipelines: readonly Pick<QueueConsumer, 'queue' | 'deadLetterQueue'>[],
    messagingKey: kms.IKey,
    stackIds: string[],
  ): void {
    this.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'PeekAndMoveDeadLetters',
        actions: [
          'sqs:ReceiveMessage',
          'sqs:ChangeMessageVisibility',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'sqs:ListDeadLetterSourceQueues',
          'sqs:StartMessageMoveTask',
          'sqs:ListMessageMoveTasks',
          'sqs:CancelMessageMoveTask',
        ],
        resources: pipelines.map((p) => p.deadLetterQueue.queueArn),
      }),
    );
    this.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'RedriveIntoSourceQueues',
        actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes'],
        resources: pipelines.map((p) => p.queue.queueArn),
      }),
    );
    this.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'UseMessagingKey',
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: [messagingKey.keyArn],
      }),
    );
    this.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReadStackOutputs',
        actions: ['cloudformation:DescribeStacks'],
        resources: stackIds,
      }),
    );
  }
}
