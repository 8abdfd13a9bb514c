/**
 * The Google Cloud billing acquisition's cursor in the ledger table, under the source's partition key
 * (`ACQUIRE#gcp#<project.dataset.table>`): `WATERMARKS` (per ingestion partition and invoice month,
 * the latest export_time acquired) and `MONTH#YYYY-MM` (the month's query job, page token and pages
 * written). Each is one item, overwritten whole as JSON: small, and only one pass writes a source.
 */
import { GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { gcpCursorPk } from '../../contract/gcp-acquisition';
import type { GcpCursorPort, MonthCursor } from '../core/acquisition/gcp-billing-pull';
import type { Watermarks } from '../core/acquisition/gcp-watermarks';
import { S } from './dynamo-kit/attributes';
import { queryBySortKeyPrefix } from './paged-query';
import { ledgerKey } from './table-layout';

export const GCP_WATERMARKS_SK = 'WATERMARKS';
export const GCP_MONTH_SK_PREFIX = 'MONTH#';
export const gcpMonthSk = (period: string): string => `${GCP_MONTH_SK_PREFIX}${period}`;

/** A month's cursor as stored, with when it was last written. */
export type StoredMonthCursor = MonthCursor & { updatedAt?: string };

export class GcpAcquisitionCursor implements GcpCursorPort {
  constructor(
    private readonly options: {
      client: DynamoDBClient;
      ledgerTable: string;
      sourceId: string;
      now?: () => Date;
    },
  ) {}

  private async readJson(sk: string): Promise<unknown> {
    const { Item } = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.ledgerTable,
        Key: ledgerKey(gcpCursorPk(this.options.sourceId), sk),
        ConsistentRead: true,
      }),
    );
    return Item?.state?.S === undefined ? undefined : JSON.parse(Item.state.S);
  }

  private async writeJson(sk: string, value: unknown): Promise<void> {
    await this.options.client.send(
      new PutItemCommand({
        TableName: this.options.ledgerTable,
        Item: {
          ...ledgerKey(gcpCursorPk(this.options.sourceId), sk),
          state: S(JSON.stringify(value)),
          updatedAt: S((this.options.now ?? (() => new Date()))().toISOString()),
        },
      }),
    );
  }

  async readWatermarks(): Promise<Watermarks> {
    return ((await this.readJson(GCP_WATERMARKS_SK)) as Watermarks | undefined) ?? {};
  }

  writeWatermarks(marks: Watermarks): Promise<void> {
    return this.writeJson(GCP_WATERMARKS_SK, marks);
  }

  async readMonth(period: string): Promise<MonthCursor | undefined> {
    return (await this.readJson(gcpMonthSk(period))) as MonthCursor | undefined;
  }

  /** Every month's cursor of the source, oldest first (for `billing-dedup acquire status`). */
  async readMonths(): Promise<StoredMonthCursor[]> {
    const items = await queryBySortKeyPrefix(
      this.options.client,
      this.options.ledgerTable,
      gcpCursorPk(this.options.sourceId),
      GCP_MONTH_SK_PREFIX,
    );
    return items.flatMap((item) =>
      item.state?.S === undefined
        ? []
        : [
            {
              ...(JSON.parse(item.state.S) as MonthCursor),
              ...(item.updatedAt?.S ? { updatedAt: item.updatedAt.S } : {}),
            },
          ],
    );
  }

  writeMonth(cursor: MonthCursor): Promise<void> {
    return this.writeJson(gcpMonthSk(cursor.period), cursor);
  }
}
