/** Ingest API keys in the ledger table, by hash (`table-layout.ts` `apiKeyItemKey`). */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ApiKeyBinding, ApiKeyStore } from '../core/ingest/api-key';
import { S } from './dynamo-kit/attributes';
import { LEDGER_PK, LEDGER_SK, apiKeyItemKey } from './table-layout';

export class DynamoApiKeys implements ApiKeyStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly ledgerTable: string,
  ) {}

  async bindingOf(keyHash: string): Promise<ApiKeyBinding | undefined> {
    const { pk, sk } = apiKeyItemKey(keyHash);
    const { Item } = await this.client.send(
      new GetItemCommand({
        TableName: this.ledgerTable,
        Key: { [LEDGER_PK]: S(pk), [LEDGER_SK]: S(sk) },
        ConsistentRead: true,
      }),
    );
    const tenant = Item?.tenant?.S;
    const source = Item?.source?.S;
    return tenant !== undefined && source !== undefined ? { tenant, source } : undefined;
  }
}
