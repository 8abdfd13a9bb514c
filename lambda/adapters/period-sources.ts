/**
 * The export sources of a (tenant, period): one item holding the set of sources that became current
 * for it, so a switch can rank itself against the others (core/export-authority.ts) without scanning.
 */
import {
  BatchGetItemCommand,
  GetItemCommand,
  UpdateItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { sourceRank, type SourceRank } from '../core/export-authority';
import type { PeriodSourcesPort } from '../core/exports/shadowing';
import { CURRENT_SK, exportPartitionKey, ledgerKey, periodSourcesKey } from './table-layout';

const BATCH_GET_LIMIT = 100;

export class PeriodSources implements PeriodSourcesPort {
  constructor(private readonly options: { client: DynamoDBClient; ledgerTable: string }) {}

  /** Idempotent: adds `source` to the period's set. */
  async register(tenant: string, period: string, source: string): Promise<void> {
    const { pk, sk } = periodSourcesKey(tenant, period);
    await this.options.client.send(
      new UpdateItemCommand({
        TableName: this.options.ledgerTable,
        Key: ledgerKey(pk, sk),
        UpdateExpression: 'ADD #sources :source SET tenant = :tenant, #period = :period',
        ExpressionAttributeNames: { '#sources': 'sources', '#period': 'period' },
        ExpressionAttributeValues: {
          ':source': { SS: [source] },
          ':tenant': { S: tenant },
          ':period': { S: period },
        },
      }),
    );
  }

  /** The registered sources with a CURRENT pointer, ranked by what their pointers record. */
  async ranks(tenant: string, period: string): Promise<SourceRank[]> {
    const { pk, sk } = periodSourcesKey(tenant, period);
    const item = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.ledgerTable,
        Key: ledgerKey(pk, sk),
        ConsistentRead: true,
      }),
    );
    const sources = item.Item?.sources?.SS ?? [];
    const ranks: SourceRank[] = [];
    let pending = sources.map((source) =>
      ledgerKey(exportPartitionKey(tenant, source, period), CURRENT_SK),
    );
    while (pending.length > 0) {
      const response = await this.options.client.send(
        new BatchGetItemCommand({
          RequestItems: {
            [this.options.ledgerTable]: {
              Keys: pending.slice(0, BATCH_GET_LIMIT),
              ConsistentRead: true,
            },
          },
        }),
      );
      for (const pointer of response.Responses?.[this.options.ledgerTable] ?? []) {
        if (!pointer.executionId?.S || !pointer.source?.S) continue;
        ranks.push(
          sourceRank(pointer.source.S, {
            ...(pointer.firstSwitchedAt?.S ? { firstSwitchedAt: pointer.firstSwitchedAt.S } : {}),
            ...(pointer.precedence?.N ? { precedence: Number(pointer.precedence.N) } : {}),
          }),
        );
      }
      pending = [
        ...pending.slice(BATCH_GET_LIMIT),
        ...((response.UnprocessedKeys?.[this.options.ledgerTable]?.Keys ?? []) as typeof pending),
      ];
    }
    return ranks;
  }
}
