/**
 * The planner's view of the ledger's EXEC items: record a plan once (ExportStore), read it back, and
 * mark it `enqueuedAt` once every task is on the chunk queue. A plan without `enqueuedAt` was recorded
 * by a planner that stopped before its sends all succeeded.
 */
import { GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ExecutionPlan, ExportTask } from '../core/exports/plan';
import type { PlanRecordsPort, RecordedPlan } from '../core/exports/plan-delivery';
import type { ExecutionRef } from '../core/exports/run-task';
import type { ExportStore } from './export-store';
import { LEDGER_PK, executionSortKey, exportPartitionKey, ledgerKey } from './table-layout';

export interface ExportPlansOptions {
  client: DynamoDBClient;
  ledgerTable: string;
  store: ExportStore;
  now?: () => number;
}

const keyOf = (ref: ExecutionRef) =>
  ledgerKey(
    exportPartitionKey(ref.tenant, ref.source, ref.period),
    executionSortKey(ref.executionId),
  );

export class ExportPlans implements PlanRecordsPort {
  constructor(private readonly options: ExportPlansOptions) {}

  recordPlan(plan: ExecutionPlan): Promise<'planned' | 'duplicate'> {
    return this.options.store.recordPlan(plan);
  }

  async readPlan(ref: ExecutionRef): Promise<RecordedPlan | undefined> {
    const { Item } = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.ledgerTable,
        Key: keyOf(ref),
        ConsistentRead: true,
        ProjectionExpression: 'tasks, enqueuedAt, fingerprint',
      }),
    );
    if (!Item) return undefined;
    return {
      tasks: JSON.parse(Item.tasks?.S ?? '[]') as ExportTask[],
      enqueued: Item.enqueuedAt?.S !== undefined,
      ...(Item.fingerprint?.S ? { fingerprint: Item.fingerprint.S } : {}),
    };
  }

  async markEnqueued(ref: ExecutionRef): Promise<void> {
    await this.options.client.send(
      new UpdateItemCommand({
        TableName: this.options.ledgerTable,
        Key: keyOf(ref),
        UpdateExpression: 'SET enqueuedAt = if_not_exists(enqueuedAt, :at)',
        ConditionExpression: `attribute_exists(${LEDGER_PK})`,
        ExpressionAttributeValues: {
          ':at': { S: new Date((this.options.now ?? Date.now)()).toISOString() },
        },
      }),
    );
  }
}
