/**
 * Issues, rotates, revokes and lists ingest API keys in the ledger table (`billing-dedup keys`). Each key
 * is two items written in one transaction: the credential the push endpoint reads (`apiKeyItemKey`, by
 * the key's SHA-256: tenant, source, and `expiresAt` once rotated out) and a listing entry under the
 * tenant (`apiKeyIndexItemKey`: key id, source, dates; the full hash only for revoking). The key text
 * itself is returned once and stored nowhere. Decisions live in core/ingest/api-key-lifecycle.ts.
 */
import { randomBytes } from 'node:crypto';
import {
  QueryCommand,
  TransactWriteItemsCommand,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { apiKeyHash } from '../core/ingest/api-key';
import {
  API_KEY_RANDOM_BYTES,
  apiKeyId,
  newApiKeyText,
  rotationExpiries,
  type ApiKeyRecord,
} from '../core/ingest/api-key-lifecycle';
import { S, type Item } from './dynamo-kit/attributes';
import { LEDGER_PK, LEDGER_SK, apiKeyIndexItemKey, apiKeyItemKey } from './table-layout';

export interface IssuedApiKey {
  /** Shown once; only its SHA-256 is stored. */
  readonly key: string;
  readonly record: ApiKeyRecord;
}

export class ApiKeyNotFoundError extends Error {
  constructor(tenant: string, source: string, keyId: string) {
    super(`no API key ${keyId} of tenant ${tenant} and source ${source}`);
    this.name = 'ApiKeyNotFoundError';
  }
}

const keyOf = ({ pk, sk }: { pk: string; sk: string }): Item => ({
  [LEDGER_PK]: S(pk),
  [LEDGER_SK]: S(sk),
});

const recordOf = (item: Item): ApiKeyRecord & { keyHash: string } => ({
  keyId: item.keyId?.S ?? '',
  tenant: item.tenant?.S ?? '',
  source: item.source?.S ?? '',
  createdAt: item.createdAt?.S ?? '',
  ...(item.expiresAt?.S !== undefined ? { expiresAt: item.expiresAt.S } : {}),
  ...(item.revokedAt?.S !== undefined ? { revokedAt: item.revokedAt.S } : {}),
  keyHash: item.keyHash?.S ?? '',
});

const publicRecord = ({ keyHash: _hash, ...record }: ApiKeyRecord & { keyHash: string }) => record;

export class DynamoApiKeyAdmin {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly ledgerTable: string,
    private readonly random: (bytes: number) => Uint8Array = randomBytes,
  ) {}

  private issueItems(
    tenant: string,
    source: string,
    now: Date,
  ): IssuedApiKey & { writes: TransactWriteItem[] } {
    const key = newApiKeyText(this.random(API_KEY_RANDOM_BYTES));
    const keyHash = apiKeyHash(key);
    const record: ApiKeyRecord = {
      keyId: apiKeyId(keyHash),
      tenant,
      source,
      createdAt: now.toISOString(),
    };
    const fields = {
      tenant: S(tenant),
      source: S(source),
      keyId: S(record.keyId),
      createdAt: S(record.createdAt),
    };
    return {
      key,
      record,
      writes: [
        {
          Put: {
            TableName: this.ledgerTable,
            Item: { ...keyOf(apiKeyItemKey(keyHash)), ...fields },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': LEDGER_PK },
          },
        },
        {
          Put: {
            TableName: this.ledgerTable,
            Item: {
              ...keyOf(apiKeyIndexItemKey(tenant, source, record.keyId)),
              ...fields,
              keyHash: S(keyHash),
            },
          },
        },
      ],
    };
  }

  /** A new key of (tenant, source); the others keep working. */
  async create(tenant: string, source: string, now = new Date()): Promise<IssuedApiKey> {
    const { writes, ...issued } = this.issueItems(tenant, source, now);
    await this.client.send(new TransactWriteItemsCommand({ TransactItems: writes }));
    return issued;
  }

  /** Every key of the tenant (of one source when given), revoked and expired ones included. */
  async list(tenant: string, source?: string): Promise<(ApiKeyRecord & { keyHash: string })[]> {
    const records: (ApiKeyRecord & { keyHash: string })[] = [];
    let start: Item | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.ledgerTable,
          KeyConditionExpression:
            source === undefined ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :source)',
          ExpressionAttributeNames: {
            '#pk': LEDGER_PK,
            ...(source === undefined ? {} : { '#sk': LEDGER_SK }),
          },
          ExpressionAttributeValues: {
            ':pk': S(apiKeyIndexItemKey(tenant, '', '').pk),
            ...(source === undefined ? {} : { ':source': S(`${source}#`) }),
          },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      records.push(...(page.Items ?? []).map(recordOf));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return records;
  }

  /**
   * A new key of (tenant, source), and every active key of that source set to expire after
   * `graceSeconds` — all in one transaction: either the producer has a new key and the old ones end,
   * or nothing changed.
   */
  async rotate(
    tenant: string,
    source: string,
    graceSeconds: number,
    now = new Date(),
  ): Promise<IssuedApiKey & { expiring: { keyId: string; expiresAt: string }[] }> {
    const existing = await this.list(tenant, source);
    const expiring = rotationExpiries(existing, source, now, graceSeconds);
    const { writes, ...issued } = this.issueItems(tenant, source, now);
    const hashOf = new Map(existing.map((record) => [record.keyId, record.keyHash]));
    const expire = (key: { pk: string; sk: string }, expiresAt: string): TransactWriteItem => ({
      Update: {
        TableName: this.ledgerTable,
        Key: keyOf(key),
        UpdateExpression: 'SET expiresAt = :at',
        ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(expiresAt)',
        ExpressionAttributeNames: { '#pk': LEDGER_PK },
        ExpressionAttributeValues: { ':at': S(expiresAt) },
      },
    });
    const expiries = expiring.flatMap(({ keyId, expiresAt }) => [
      expire(apiKeyItemKey(hashOf.get(keyId) as string), expiresAt),
      expire(apiKeyIndexItemKey(tenant, source, keyId), expiresAt),
    ]);
    await this.client.send(
      new TransactWriteItemsCommand({ TransactItems: [...writes, ...expiries] }),
    );
    return { ...issued, expiring };
  }

  /** The key stops working at once: its credential is deleted, its listing entry marked revoked. */
  async revoke(
    tenant: string,
    source: string,
    keyId: string,
    now = new Date(),
  ): Promise<ApiKeyRecord> {
    const found = (await this.list(tenant, source)).find((record) => record.keyId === keyId);
    if (found === undefined || found.revokedAt !== undefined)
      throw new ApiKeyNotFoundError(tenant, source, keyId);
    const revokedAt = now.toISOString();
    await this.client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Delete: { TableName: this.ledgerTable, Key: keyOf(apiKeyItemKey(found.keyHash)) } },
          {
            Update: {
              TableName: this.ledgerTable,
              Key: keyOf(apiKeyIndexItemKey(tenant, source, keyId)),
              UpdateExpression: 'SET revokedAt = :at',
              ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(revokedAt)',
              ExpressionAttributeNames: { '#pk': LEDGER_PK },
              ExpressionAttributeValues: { ':at': S(revokedAt) },
            },
          },
        ],
      }),
    );
    return { ...publicRecord(found), revokedAt };
  }
}

export { publicRecord as publicApiKeyRecord };
