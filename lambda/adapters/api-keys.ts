/**
 * The push endpoint's credentials in the ledger table, only ever as SHA-256 hashes: ingest API keys
 * (`apiKeyItemKey`, bound to a tenant and source) and Azure webhook tokens (`webhookSecretItemKey`).
 * Adding or deleting an item rotates a credential; no redeploy.
 */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ApiKeyBinding, ApiKeyStore } from '../core/ingest/api-key';
import { S, type Item } from './dynamo-kit/attributes';
import { LEDGER_PK, LEDGER_SK, apiKeyItemKey, webhookSecretItemKey } from './table-layout';

export class DynamoCredentials implements ApiKeyStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly ledgerTable: string,
  ) {}

  private async item({ pk, sk }: { pk: string; sk: string }): Promise<Item | undefined> {
    const { Item } = await this.client.send(
      new GetItemCommand({
        TableName: this.ledgerTable,
        Key: { [LEDGER_PK]: S(pk), [LEDGER_SK]: S(sk) },
        ConsistentRead: true,
      }),
    );
    return Item;
  }

  async bindingOf(keyHash: string): Promise<ApiKeyBinding | undefined> {
    const item = await this.item(apiKeyItemKey(keyHash));
    const tenant = item?.tenant?.S;
    const source = item?.source?.S;
    const expiresAt = item?.expiresAt?.S;
    if (tenant === undefined || source === undefined) return undefined;
    return expiresAt === undefined ? { tenant, source } : { tenant, source, expiresAt };
  }

  async azureSecretHashOf(tenant: string): Promise<string | undefined> {
    return (await this.item(webhookSecretItemKey(tenant)))?.secretHash?.S;
  }
}
