import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AutoCloseCandidate } from '../core/auto-close';
import { LEDGER_PK, LEDGER_SK, PERIOD_SK, TOTAL_PREFIX, ledgerKeyOf } from './table-layout';

type Item = Record<string, AttributeValue>;

/**
 * Every account-period up to `latestPeriod` (inclusive) that has totals, with how often it was closed:
 * one paged Scan of the ledger table that returns only total and PERIOD items. A Scan reads (and is
 * billed for) the whole table whatever the filter; the auto-close function runs it once a day.
 */
export const scanAutoCloseCandidates = async (
  client: DynamoDBClient,
  table: string,
  latestPeriod: string,
): Promise<AutoCloseCandidate[]> => {
  const withTotals = new Map<string, AutoCloseCandidate>();
  const periodItems = new Map<string, Pick<AutoCloseCandidate, 'state' | 'closeCount'>>();
  let start: Item | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: `(begins_with(#sk, :total) AND #period <= :latest) OR #sk = :periodSk`,
        ProjectionExpression: '#pk, #sk, tenant, accountId, #period, #state, closeCount',
        ExpressionAttributeNames: {
          '#pk': LEDGER_PK,
          '#sk': LEDGER_SK,
          '#period': 'period',
          '#state': 'state',
        },
        ExpressionAttributeValues: {
          ':total': { S: TOTAL_PREFIX },
          ':latest': { S: latestPeriod },
          ':periodSk': { S: PERIOD_SK },
        },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const { pk, sk } = ledgerKeyOf(item);
      if (sk === PERIOD_SK) {
        periodItems.set(pk, {
          state: item.state?.S === 'closed' ? 'closed' : 'open',
          closeCount: Number(item.closeCount?.N ?? '0'),
        });
        continue;
      }
      const key = {
        tenant: item.tenant?.S ?? '',
        accountId: item.accountId?.S ?? '',
        period: item.period?.S ?? '',
      };
      if (key.tenant && key.accountId && key.period && !withTotals.has(pk))
        withTotals.set(pk, { ...key, state: 'open', closeCount: 0 });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return [...withTotals.entries()].map(([pk, candidate]) => ({
    ...candidate,
    ...periodItems.get(pk),
  }));
};
