/**
 * The Azure export copier's cursor: one ledger-table item per export source (`ACQUIRE#azure#<source>`,
 * sort key `CURSOR`) holding the last run handled. It only moves forward: the update is conditional on
 * the stored run being older, so a late or repeated pass cannot move it back.
 */
import {
  ConditionalCheckFailedException,
  GetItemCommand,
  UpdateItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { azureCursorPk } from '../../contract/azure-acquisition';
import type { AzureCursorPort } from '../core/acquisition/azure-export-copy';
import type { AzureRunCursor } from '../core/acquisition/azure-runs';
import { S } from './dynamo-kit/attributes';
import { LEDGER_PK, ledgerKey } from './table-layout';

export const AZURE_CURSOR_SK = 'CURSOR';

export interface StoredAzureCursor extends AzureRunCursor {
  period: string;
  updatedAt: string;
}

export class AzureAcquisitionCursor implements AzureCursorPort {
  constructor(
    private readonly options: {
      client: DynamoDBClient;
      ledgerTable: string;
      /** Names the export source: `<storage account>/<container>/<export folder>`. */
      sourceId: string;
      now?: () => Date;
    },
  ) {}

  private get key() {
    return ledgerKey(azureCursorPk(this.options.sourceId), AZURE_CURSOR_SK);
  }

  async readStored(): Promise<StoredAzureCursor | undefined> {
    const { Item } = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.ledgerTable,
        Key: this.key,
        ConsistentRead: true,
      }),
    );
    if (Item?.submittedTime?.S === undefined || Item.runId?.S === undefined) return undefined;
    return {
      submittedTime: Item.submittedTime.S,
      runId: Item.runId.S,
      period: Item.period?.S ?? '',
      updatedAt: Item.updatedAt?.S ?? '',
    };
  }

  async read(): Promise<AzureRunCursor | undefined> {
    const stored = await this.readStored();
    return stored && { submittedTime: stored.submittedTime, runId: stored.runId };
  }

  async advance(to: AzureRunCursor & { period: string }): Promise<void> {
    try {
      await this.options.client.send(
        new UpdateItemCommand({
          TableName: this.options.ledgerTable,
          Key: this.key,
          UpdateExpression: 'SET submittedTime = :t, runId = :r, period = :p, updatedAt = :now',
          ConditionExpression:
            'attribute_not_exists(#pk) OR submittedTime < :t OR (submittedTime = :t AND runId < :r)',
          ExpressionAttributeNames: { '#pk': LEDGER_PK },
          ExpressionAttributeValues: {
            ':t': S(to.submittedTime),
            ':r': S(to.runId),
            ':p': S(to.period),
            ':now': S((this.options.now ?? (() => new Date()))().toISOString()),
          },
        }),
      );
    } catch (error) {
      // Already at or past `to`: a repeated pass has nothing to move.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
