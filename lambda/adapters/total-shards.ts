import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { addDecimals } from '../core/decimal';
import type { SourceChange } from '../core/ledger-decision';
import { ledgerKey, shardAttribute, totalShardSortKey } from './table-layout';

/**
 * The one write every ledger effect makes to an account-period's totals: ADD to one shard item, on
 * condition that the period is not closed (a close stamps `closedAt` on all shards in its transaction).
 */

export interface ShardDelta {
  currency: string;
  delta: string;
  charges: number;
  /** Set when the effect belongs to this closed earlier period (a correction booked here). */
  correctionOf?: string;
  /** The part of the effect on its source's per-source totals; ignored on a correction (always added). */
  bySource?: SourceChange;
  /** A late provisional charge's change: to `provisional@<source>:<cur>` only (needs `bySource`). */
  provisional?: boolean;
}

export interface ShardWrite {
  pk: string;
  shard: number;
  scope: { tenant: string; accountId: string; period: string };
  deltas: ShardDelta[];
  /** Late provisional charges of a closed period: the write requires the period closed instead. */
  provisional?: boolean;
}

/** The condition every shard write carries. */
export const NOT_CLOSED = 'attribute_not_exists(closedAt)';
/** The condition of a provisional write: it changes no total, so it goes only where the close froze them. */
export const CLOSED = 'attribute_exists(closedAt)';

/**
 * Deltas summed per (attribute) name: `total:<cur>`, `charges:<cur>`, `corrected…:<period>:<cur>`, and
 * for the period's own charges `total@<source>:<cur>`, `charges@<source>:<cur>`; a provisional change
 * only `provisional@<source>:<cur>`, `provisionalCharges@<source>:<cur>`.
 */
const sums = (deltas: readonly ShardDelta[]): Map<string, string> => {
  const byName = new Map<string, string>();
  const add = (name: string, value: string) =>
    byName.set(name, addDecimals(byName.get(name) ?? '0', value));
  for (const { currency, delta, charges, correctionOf, bySource, provisional } of deltas) {
    if (provisional) {
      if (bySource === undefined) throw new Error('a provisional change names its source');
      add(shardAttribute.provisionalTotal(bySource.source, currency), delta);
      add(shardAttribute.provisionalCharges(bySource.source, currency), String(charges));
      continue;
    }
    add(shardAttribute.total(currency), delta);
    add(shardAttribute.charges(currency), String(charges));
    if (correctionOf !== undefined) {
      add(shardAttribute.corrected(correctionOf, currency), delta);
      add(shardAttribute.correctedCharges(correctionOf, currency), String(charges));
    } else if (bySource !== undefined) {
      add(shardAttribute.sourceTotal(bySource.source, currency), bySource.delta);
      add(shardAttribute.sourceCharges(bySource.source, currency), String(bySource.charges));
    }
  }
  return byName;
};

export const shardUpdate = (table: string, write: ShardWrite): TransactWriteItem => {
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {
    ':one': { N: '1' },
    ':tenant': { S: write.scope.tenant },
    ':account': { S: write.scope.accountId },
    ':period': { S: write.scope.period },
  };
  const adds = ['seq :one'];
  [...sums(write.deltas)].forEach(([name, value], index) => {
    names[`#a${index}`] = name;
    values[`:a${index}`] = { N: value };
    adds.push(`#a${index} :a${index}`);
  });
  return {
    Update: {
      TableName: table,
      Key: ledgerKey(write.pk, totalShardSortKey(write.shard)),
      UpdateExpression: `ADD ${adds.join(', ')} SET tenant = :tenant, accountId = :account, period = :period`,
      ConditionExpression: write.provisional ? CLOSED : NOT_CLOSED,
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
  };
};
