/**
 * Attribute names of the two tables. The stateful stack declares the keys and the TTL attribute;
 * the adapters in lambda/adapters write and read the items; docs/architecture.md lists every item kind.
 */
export const DEDUP_TABLE = {
  partitionKey: 'pk',
  /** Epoch seconds; DynamoDB TTL deletes lazily, so every condition treats `expiresAt < now` as absent. */
  expiresAt: 'expiresAt',
} as const;

export const LEDGER_TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
} as const;

/** The ledger table's key schema as CreateTable takes it (tests, `replay --rebuild-into`). */
export const ledgerTableKeySchema = () => ({
  AttributeDefinitions: [
    { AttributeName: LEDGER_TABLE.partitionKey, AttributeType: 'S' as const },
    { AttributeName: LEDGER_TABLE.sortKey, AttributeType: 'S' as const },
  ],
  KeySchema: [
    { AttributeName: LEDGER_TABLE.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: LEDGER_TABLE.sortKey, KeyType: 'RANGE' as const },
  ],
});
