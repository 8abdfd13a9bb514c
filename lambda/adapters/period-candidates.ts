import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  autoCloseCandidates,
  type AutoCloseCandidate,
  type ScannedPartition,
} from '../core/auto-close';
import type { PartitionItemKind } from '../core/period-close-rule';
import {
  LEDGER_PK,
  LEDGER_SK,
  PERIOD_SK,
  SNAPSHOT_PREFIX,
  TOTAL_PREFIX,
  ledgerKeyOf,
  ledgerPartitionOf,
  partitionItemKindOf,
} from './table-layout';

type Item = Record<string, AttributeValue>;

/**
 * Every account-period up to `latestPeriod` (inclusive) with data of any kind, with how often it was
 * closed: one paged Scan of the ledger table that returns only the keys of total, snapshot and PERIOD
 * items (and the state and close count PERIOD items carry); the partition key names the account-period.
 * A Scan reads (and is billed for) the whole table whatever the filter and projection; the auto-close
 * function runs it once a day.
 */
export const scanAutoCloseCandidates = async (
  client: DynamoDBClient,
  table: string,
  latestPeriod: string,
): Promise<AutoCloseCandidate[]> => {
  const partitions = new Map<string, ScannedPartition & { kinds: Set<PartitionItemKind> }>();
  let start: Item | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression:
          'begins_with(#sk, :total) OR begins_with(#sk, :snapshot) OR #sk = :periodSk',
        ProjectionExpression: '#pk, #sk, #state, closeCount',
        ExpressionAttributeNames: { '#pk': LEDGER_PK, '#sk': LEDGER_SK, '#state': 'state' },
        ExpressionAttributeValues: {
          ':total': { S: TOTAL_PREFIX },
          ':snapshot': { S: SNAPSHOT_PREFIX },
          ':periodSk': { S: PERIOD_SK },
        },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const { pk, sk } = ledgerKeyOf(item);
      const key = ledgerPartitionOf(pk);
      const kind = partitionItemKindOf(sk);
      if (!key || !kind) continue;
      const partition = partitions.get(pk) ?? {
        ...key,
        kinds: new Set(),
        state: 'open',
        closeCount: 0,
      };
      partition.kinds.add(kind);
      if (kind === 'period-state') {
        partition.state = item.state?.S === 'closed' ? 'closed' : 'open';
        partition.closeCount = Number(item.closeCount?.N ?? '0');
      }
      partitions.set(pk, partition);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return autoCloseCandidates(partitions.values(), latestPeriod);
};
