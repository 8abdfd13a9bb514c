import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { MAX_TOTAL_SHARDS } from '../../contract/environment';
import { DEDUP_TABLE, LEDGER_TABLE } from '../../contract/tables';
import type { CostEvent } from '../core/events';
import type { PartitionItemKind } from '../core/period-close-rule';
import { fail } from '../core/errors';
import { billingPeriodOf, type CostIdentity } from '../core/keys';
import type { ChargeRef, LedgerLayout } from '../core/ports';

/**
 * Every key of the two DynamoDB tables and the table limits they must respect; the adapters build
 * their items from here and docs/architecture.md#tables-and-items lists them. The core never sees
 * this layout: it asks the ledger port (`LedgerPort.layout`) for a charge's keys.
 */

/** Where a consumer's items go in the dedup table: the table, the stream (its key prefix) and their lifetime. */
export interface DedupScope {
  dedupTable: string;
  stream: string;
  ttlSeconds: number;
}

export const dedupScopeOf = ({ dedupTable, stream, ttlSeconds }: DedupScope): DedupScope => ({
  dedupTable,
  stream,
  ttlSeconds,
});

/** DynamoDB's limits that shape the layout. */
export const DYNAMO_LIMITS = {
  /** UTF-8 bytes of a partition key value. */
  partitionKeyBytes: 2048,
  /** Items in one TransactWriteItems. */
  transactionItems: 100,
  /** Keys in one BatchGetItem. */
  batchGetKeys: 100,
} as const;

/** Attribute names in expressions: the contract's, so a rename there cannot miss one. */
export const DEDUP_PK = DEDUP_TABLE.partitionKey;
export const DEDUP_EXPIRES_AT = DEDUP_TABLE.expiresAt;
export const LEDGER_PK = LEDGER_TABLE.partitionKey;
export const LEDGER_SK = LEDGER_TABLE.sortKey;

/** The key of a dedup table item. */
export const dedupKey = (pk: string): Record<string, AttributeValue> => ({ [DEDUP_PK]: { S: pk } });

/** The key of a ledger table item. */
export const ledgerKey = (pk: string, sk: string): Record<string, AttributeValue> => ({
  [LEDGER_PK]: { S: pk },
  [LEDGER_SK]: { S: sk },
});

/** The partition and sort key values of a ledger table item ('' where absent). */
export const ledgerKeyOf = (item: Record<string, AttributeValue>): { pk: string; sk: string } => ({
  pk: item[LEDGER_PK]?.S ?? '',
  sk: item[LEDGER_SK]?.S ?? '',
});

// Ledger table: one partition per tenant, account and billing month.

export const CHARGE_PREFIX = 'CHARGE#';
export const TOTAL_PREFIX = 'TOTAL#';

/** The ledger partition of a tenant, account and `yyyy-mm` period (statements read it). */
export const ledgerPartitionKeyOf = (tenant: string, accountId: string, period: string): string =>
  `TENANT#${tenant}#ACCOUNT#${accountId}#PERIOD#${period}`;

const LEDGER_PARTITION = /^TENANT#([^#]+)#ACCOUNT#(.+)#PERIOD#(\d{4}-\d{2})$/;

/**
 * The tenant, account and period of a ledger partition key; undefined for any other partition. A
 * tenant is a slug (no `#`) and the period is last, so an account id may hold any character.
 */
export const ledgerPartitionOf = (
  pk: string,
): { tenant: string; accountId: string; period: string } | undefined => {
  const match = LEDGER_PARTITION.exec(pk);
  return match ? { tenant: match[1], accountId: match[2], period: match[3] } : undefined;
};

/** The ledger partition of a charge: its tenant, account and billing period. */
export const ledgerPartitionKey = (event: CostEvent): string =>
  ledgerPartitionKeyOf(event.tenant, event.accountId, billingPeriodOf(event));

export const chargeSortKey = (identity: Pick<CostIdentity, 'digest'>): string =>
  `${CHARGE_PREFIX}${identity.digest}`;
/** A total item written by earlier versions (one per currency): still read and summed, never written. */
export const legacyTotalSortKey = (currency: string): string => `${TOTAL_PREFIX}${currency}`;

/** The benchmark's baseline consumer still writes per-currency totals. */
export const totalSortKey = legacyTotalSortKey;

/**
 * Shards of an account-period's totals: `TOTAL#00`..`TOTAL#31`, each holding every currency. Writers use
 * the first `totalShards` of them; readers sum every `TOTAL#` item, whatever the number in use.
 */
export { MAX_TOTAL_SHARDS };
export const totalShardSortKey = (shard: number): string =>
  `${TOTAL_PREFIX}${String(shard).padStart(2, '0')}`;
/** Shard sort keys are two digits; currency codes three letters: the two kinds never meet. */
export const isTotalShardSortKey = (sk: string): boolean => /^TOTAL#\d{2}$/.test(sk);
/** A charge's home shard out of `shards`: its identity digest's first 8 hex digits. */
export const shardOf = (identityDigest: string, shards: number): number =>
  Number.parseInt(identityDigest.slice(0, 8), 16) % shards;

/** Attribute names on a shard item. */
export const shardAttribute = {
  total: (currency: string) => `total:${currency}`,
  charges: (currency: string) => `charges:${currency}`,
  /** The part of `total:<cur>` booked here as a correction of the closed period `of`. */
  corrected: (of: string, currency: string) => `corrected:${of}:${currency}`,
  correctedCharges: (of: string, currency: string) => `correctedCharges:${of}:${currency}`,
  /**
   * The part of `total:<cur>` / `charges:<cur>` that charges of `source` of this period made (the
   * provisional rule, core/ledger-total.ts); `@` keeps them apart from `total:` and `corrected:`.
   */
  sourceTotal: (source: string, currency: string) => `total@${source}:${currency}`,
  sourceCharges: (source: string, currency: string) => `charges@${source}:${currency}`,
  /**
   * Late stream charges of `source` kept as provisional in this closed period (its export supersedes
   * them): listed by statements, never part of `total:<cur>`.
   */
  provisionalTotal: (source: string, currency: string) => `provisional@${source}:${currency}`,
  provisionalCharges: (source: string, currency: string) =>
    `provisionalCharges@${source}:${currency}`,
} as const;

/** `provisional@<source>:<cur>` → its source and currency; undefined for any other attribute. */
export const provisionalAttributeOf = (
  name: string,
): { source: string; currency: string } | undefined => {
  const match = /^provisional@(.+):([^:]+)$/.exec(name);
  return match ? { source: match[1], currency: match[2] } : undefined;
};

/** `total@<source>:<cur>` → its source and currency; undefined for any other attribute. */
export const sourceTotalAttributeOf = (
  name: string,
): { source: string; currency: string } | undefined => {
  const match = /^total@(.+):([^:]+)$/.exec(name);
  return match ? { source: match[1], currency: match[2] } : undefined;
};

/** The state of an account-period (open/closed, close and reopen details) in its ledger partition. */
export const PERIOD_SK = 'PERIOD';
export const PERIOD_AUDIT_PREFIX = 'PERIOD#AUDIT#';
/** An immutable record of one close, reopen or void (ISO instant first: they sort in order). */
export const periodAuditSortKey = (
  atIso: string,
  closeCount: number,
  action: 'close' | 'reopen' | 'void',
): string => `${PERIOD_AUDIT_PREFIX}${atIso}#${closeCount}#${action}`;
export const VOID_PREFIX = 'VOID#';
/** The audit record of a voided charge, beside it in its own partition. */
export const voidSortKey = (chargeDigest: string): string => `${VOID_PREFIX}${chargeDigest}`;

// Ledger table, export executions: one `EXPORT#` partition per tenant, export source and billing
// period holds the plans (`EXEC#`), chunk commits and their parts, the CSV cursors, the CURRENT
// pointer and the diffs; the per-account SNAPSHOT items sit in the account's ledger partition, next to
// its charges and totals (a statement reads both in one query).

export const EXPORT_PREFIX = 'EXPORT#';
export const EXECUTION_PREFIX = 'EXEC#';
export const DIFF_PREFIX = 'DIFF#';
export const SNAPSHOT_PREFIX = 'SNAPSHOT#';
export const CHUNK_PART_MARKER = '#PART#';
/** The pointer to the current execution of an export partition. */
export const CURRENT_SK = 'CURRENT';

export const exportPartitionKey = (tenant: string, source: string, period: string): string =>
  `${EXPORT_PREFIX}${tenant}#${source}#${period}`;
export const executionSortKey = (executionId: string): string =>
  `${EXECUTION_PREFIX}${executionId}`;
/** Every chunk item of an execution (and its parts) starts with this. */
export const chunkSortKeyPrefix = (executionId: string): string =>
  `${executionSortKey(executionId)}#CHUNK#`;
export const chunkSortKey = (executionId: string, chunkId: string): string =>
  `${chunkSortKeyPrefix(executionId)}${chunkId}`;
/** Part 1, 2, … of a chunk's totals beyond the first, as earlier versions wrote them (still read). */
export const chunkPartSortKey = (chunkSk: string, part: number): string =>
  `${chunkSk}${CHUNK_PART_MARKER}${String(part).padStart(2, '0')}`;
/**
 * The pages of a chunk's totals that do not fit its item: `<chunk sk>#PART#<digest>#<nnnnn>`. The
 * digest of their content keeps two deliveries that read a CSV file with other sub-chunk bounds (the
 * same chunk id, other totals) from ever writing the same page key.
 */
export const chunkPagesSortKeyPrefix = (chunkSk: string, digest: string): string =>
  `${chunkSk}${CHUNK_PART_MARKER}${digest}#`;
export const cursorSortKey = (executionId: string, taskIndex: number): string =>
  `CURSOR#${executionId}#${String(taskIndex).padStart(5, '0')}`;
export const diffSortKey = (switchedAt: string, executionId: string): string =>
  `${DIFF_PREFIX}${switchedAt}#${executionId}`;
export const DIFF_PAGE_PREFIX = 'DIFFPAGE#';
/**
 * The pages of the diff of `executionId` against the execution it replaced. The diff is a function of
 * those two executions only, so a retried switch writes the same pages under the same keys.
 */
export const diffPagesSortKeyPrefix = (executionId: string, replacedDigest: string): string =>
  `${DIFF_PAGE_PREFIX}${executionId}#${replacedDigest}#`;
export const LATE_PAGE_PREFIX = 'LATEPAGE#';
/** The pages of the corrections a correction pass of `executionId` could not book (digest of their content). */
export const latePagesSortKeyPrefix = (executionId: string, digest: string): string =>
  `${LATE_PAGE_PREFIX}${executionId}#${digest}#`;
/** An export source's totals of one account, in the account's ledger partition. */
export const snapshotSortKey = (source: string, executionId: string): string =>
  `${SNAPSHOT_PREFIX}${source}#${executionId}`;
/**
 * Stream-versus-export drift (core/exports/provisional-drift.ts): one item per switch that superseded the
 * account-period's stream charges, beside the SNAPSHOT it compares, in switch order.
 */
export const DRIFT_PREFIX = 'DRIFT#';
export const driftSortKey = (switchedAt: string, source: string, executionId: string): string =>
  `${DRIFT_PREFIX}${switchedAt}#${source}#${executionId}`;

/**
 * The export sources that became current for a (tenant, period): which ones may shadow each other. Under
 * `EXPORT#` like the execution partitions (the chunk worker's grant); tenants, source ids (`#` escaped)
 * and periods hold no `#`, so it never meets `EXPORT#<tenant>#<source>#<period>`.
 */
export const periodSourcesKey = (tenant: string, period: string): { pk: string; sk: string } => ({
  pk: `${EXPORT_PREFIX}${tenant}#${period}`,
  sk: 'SOURCES',
});

/**
 * Reconciliation records (docs/reconciliation.md): one partition per billing period, `RECON#<yyyy-mm>`,
 * one permanent item per run date, tenant, account and currency, `RUN#<yyyy-mm-dd>#<tenant>#<account>#<currency>`
 * (a re-run the same day overwrites its own). Tenants hold no `#`; records are read back from their attributes.
 */
export const RECON_PREFIX = 'RECON#';
export const RECON_RUN_PREFIX = 'RUN#';
export const reconPartitionKey = (period: string): string => `${RECON_PREFIX}${period}`;
export const reconRunPrefix = (runDate: string, tenant?: string): string =>
  `${RECON_RUN_PREFIX}${runDate}#${tenant === undefined ? '' : `${tenant}#`}`;
export const reconSortKey = (
  runDate: string,
  tenant: string,
  accountId: string,
  currency: string,
): string => `${reconRunPrefix(runDate, tenant)}${accountId}#${currency}`;
/**
 * A completeness record of the same run: `RUN#<yyyy-mm-dd>#<tenant>#<account>#FILES#<source>` (a currency
 * is three letters, so never `FILES`; source ids hold no `#`).
 */
export const reconCompletenessSortKey = (
  runDate: string,
  tenant: string,
  accountId: string,
  source: string,
): string => `${reconRunPrefix(runDate, tenant)}${accountId}#FILES#${source}`;

/** The kind of an account-period partition's item, by its sort key (undefined: a kind no rule needs). */
export const partitionItemKindOf = (sk: string): PartitionItemKind | undefined => {
  if (sk.startsWith(TOTAL_PREFIX)) return 'stream-total';
  if (sk.startsWith(SNAPSHOT_PREFIX)) return 'export-snapshot';
  if (sk === PERIOD_SK) return 'period-state';
  return undefined;
};

// Dedup table: windowed claims for what has no permanent item of its own. Every key starts with the
// stream name, so two streams never share a key. Within a stream the kinds cannot meet either: an
// alert claim ends in 24 base64 characters, a marker in `dead-letter#` and a message id. The cost
// stream writes no claims (its charge item is the claim); items `<stream>#<64 hex digits>` that
// versions before it wrote are never read and expire by TTL. Its charge leases (advisory, seconds
// long, never part of exactly-once) are `<stream>#lease#<64 hex digits>`.

/**
 * Alert claims are Powertools Idempotency records: it writes `<prefix>#<base64 MD5 of the JSON
 * payload>` (the payload is the alert key) and owns their attributes; the prefix is ours.
 */
export const alertClaimPrefix = (stream: string): string => stream;

/** Lease on a charge about to be committed (`ChargeLeasePort`); `digest` hashes the charge key. */
export const chargeLeaseKey = (stream: string, digest: string): string =>
  `${stream}#lease#${digest}`;

/** Marker of one SQS message already forwarded to the DLQ. */
export const deadLetterMarkerKey = (stream: string, messageId: string): string =>
  `${stream}#dead-letter#${messageId}`;

/**
 * Items one commit writes at most: its charge and one total shard (every currency of a partition lives
 * on the same shard item, and a group adds each partition's sum to one shard).
 */
const ITEMS_PER_COMMIT = 2;

/** The ledger layout, as the core sees it through the ledger port. */
export const ledgerLayout = (): LedgerLayout => ({
  keysOf: (event, identity) => {
    const pk = ledgerPartitionKey(event);
    if (Buffer.byteLength(pk, 'utf8') > DYNAMO_LIMITS.partitionKeyBytes) {
      fail(
        'invalid-field',
        'accountId',
        `tenant, account and period exceed DynamoDB's ${DYNAMO_LIMITS.partitionKeyBytes}-byte key limit`,
      );
    }
    const ref: ChargeRef = { pk, sk: chargeSortKey(identity) };
    return { ref };
  },
  maxGroupSize: Math.floor(DYNAMO_LIMITS.transactionItems / ITEMS_PER_COMMIT),
});

/** Dedup table: an ingest API idempotency key (already scoped by tenant and source). */
export const ingestKeyItemKey = (scopedKey: string): string => `ingest-key#${scopedKey}`;

/** Ledger table: an ingest API key, by the SHA-256 of the key (the key itself is never stored). */
export const API_KEY_PREFIX = 'API_KEY#';
export const apiKeyItemKey = (keyHash: string): { pk: string; sk: string } => ({
  pk: `${API_KEY_PREFIX}${keyHash}`,
  sk: 'API_KEY',
});

/**
 * Ledger table: a tenant's API keys listed for operators (`billing-dedup keys list`), one item per key
 * under the tenant, sorted by source; the function never reads them.
 */
export const API_KEY_INDEX_PREFIX = 'API_KEYS#';
export const apiKeyIndexItemKey = (
  tenant: string,
  source: string,
  keyId: string,
): { pk: string; sk: string } => ({
  pk: `${API_KEY_INDEX_PREFIX}${tenant}`,
  sk: `${source}#${keyId}`,
});

/** Ledger table: the SHA-256 of a tenant's Azure action-group webhook token. */
export const webhookSecretItemKey = (tenant: string): { pk: string; sk: string } => ({
  pk: `WEBHOOK_SECRET#azure#${tenant}`,
  sk: 'WEBHOOK_SECRET',
});

/** Dedup table: the ingest API requests of one API key (tenant#source) in the minute from `start`. */
export const rateWindowItemKey = (scope: string, start: number): string =>
  `ingest-rate#${scope}#${start}`;
