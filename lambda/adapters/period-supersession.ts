/**
 * Whose stream charges the export of an account-period supersedes, read for a late charge of a closed
 * period (core/ledger-total.ts `supersessionOf`): the partition's PERIOD and SNAPSHOT items in one
 * consistent query, then the CURRENT pointers of the sources they name.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { supersessionOf, type Supersession } from '../core/ledger-total';
import type { PeriodKey } from '../core/ports';
import {
  periodInfoOf,
  readCurrentPointers,
  readStatementItems,
  snapshotPartOf,
} from './ledger-reader';
import { ledgerPartitionKeyOf } from './table-layout';

export const readSupersession = async (
  client: DynamoDBClient,
  table: string,
  key: PeriodKey,
): Promise<Supersession | undefined> => {
  const { period, snapshots } = await readStatementItems(
    client,
    table,
    ledgerPartitionKeyOf(key.tenant, key.accountId, key.period),
  );
  const parts = snapshots.map(snapshotPartOf);
  if (parts.length === 0) return undefined;
  return supersessionOf(
    parts,
    await readCurrentPointers(client, table, parts),
    period ? periodInfoOf(period) : undefined,
  );
};
