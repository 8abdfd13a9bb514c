/**
 * The export sources of a (tenant, period): one item holding the set of sources that became current
 * for it, so a switch can rank itself against the others (core/export-authority.ts) without scanning.
 */
import { GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { sourceRank, type SourceRank } from '../core/export-authority';
import type { PeriodSourcesPort } from '../core/exports/shadowing';
import { CURRENT_SK, exportPartitionKey, ledgerKey, periodSourcesKey } from './table-layout';

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
    const sources = (await this.item(pk, sk))?.sources?.SS ?? [];
    // One GetItem per source (a tenant has a few exports): the grant on `EXPORT#` has no BatchGetItem.
    const pointers = await Promise.all(
      sources.map((source) => this.item(exportPartitionKey(tenant, source, period), CURRENT_SK)),
    );
    return pointers.flatMap((pointer) =>
      pointer?.executionId?.S && pointer.source?.S
        ? [
            sourceRank(pointer.source.S, {
              ...(pointer.firstSwitchedAt?.S ? { firstSwitchedAt: pointer.firstSwitchedAt.S } : {}),
              ...(pointer.precedence?.N ? { precedence: Number(pointer.precedence.N) } : {}),
            }),
          ]
        : [],
    );
  }

  private async item(pk: string, sk: string) {
    const response = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.ledgerTable,
        Key: ledgerKey(pk, sk),
        ConsistentRead: true,
      }),
    );
    return response.Item;
  }
}
