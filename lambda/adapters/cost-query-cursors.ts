/**
 * The Query API pull's durable cursor in the ledger table: one item per (scope, month),
 * `ACQUIRE#azure-query#<scope>` / `MONTH#YYYY-MM`, overwritten after each page and each throttle.
 */
import { GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { CostQueryCursor, CostQueryCursorStore } from './cost-management-query';
import { BOOL, N, S, optionalS } from './dynamo-kit/attributes';
import { ledgerKey } from './table-layout';

const keyOf = (scope: string, month: string) =>
  ledgerKey(`ACQUIRE#azure-query#${scope}`, `MONTH#${month}`);

export class DynamoCostQueryCursors implements CostQueryCursorStore {
  constructor(private readonly options: { client: DynamoDBClient; ledgerTable: string }) {}

  async read(scope: string, month: string): Promise<CostQueryCursor | undefined> {
    const { Item } = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.ledgerTable,
        Key: keyOf(scope, month),
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    return {
      scope,
      month,
      pagesDone: Number(Item.pagesDone?.N ?? '0'),
      done: Item.done?.BOOL === true,
      ...(Item.nextLink?.S === undefined ? {} : { nextLink: Item.nextLink.S }),
      ...(Item.notBefore?.N === undefined ? {} : { notBefore: Number(Item.notBefore.N) }),
    };
  }

  async write(cursor: CostQueryCursor): Promise<void> {
    await this.options.client.send(
      new PutItemCommand({
        TableName: this.options.ledgerTable,
        Item: {
          ...keyOf(cursor.scope, cursor.month),
          pagesDone: N(cursor.pagesDone),
          done: BOOL(cursor.done),
          ...optionalS('nextLink', cursor.nextLink),
          ...(cursor.notBefore === undefined ? {} : { notBefore: N(cursor.notBefore) }),
          updatedAt: S(new Date().toISOString()),
        },
      }),
    );
  }
}
