import {
  CURRENT_SK,
  DYNAMO_LIMITS,
  chunkPartSortKey,
  chunkSortKey,
  chunkSortKeyPrefix,
  cursorSortKey,
  deadLetterMarkerKey,
  diffSortKey,
  executionSortKey,
  exportPartitionKey,
  ledgerKey,
  periodSourcesKey,
  ledgerKeyOf,
  ledgerLayout,
  ledgerPartitionKeyOf,
  ledgerPartitionOf,
  partitionItemKindOf,
  snapshotSortKey,
  totalShardSortKey,
} from '../../../lambda/adapters/table-layout';
import { ValidationError } from '../../../lambda/core/errors';
import { decodeRecord } from '../../../lambda/core/envelope';
import { parseCostEvent } from '../../../lambda/core/formats';
import { costContentHash, costIdentity } from '../../../lambda/core/keys';
import { costEvent, type CostEventInput } from '../../support/cost-events';
import { sqsRecord } from '../../support/sqs-events';

const layout = ledgerLayout();

const keysOf = (input: CostEventInput) => {
  const { event } = parseCostEvent(decodeRecord(sqsRecord(costEvent(input))));
  return layout.keysOf(event, costIdentity(event, costContentHash(event)));
};

describe('ledger layout', () => {
  it('keeps the documented keys of stored charges (existing items must stay reachable)', () => {
    expect(keysOf({ accountId: '123456789012', eventId: 'evt-1', amount: '1' })).toEqual({
      ref: {
        pk: 'TENANT#acme#ACCOUNT#123456789012#PERIOD#2026-11',
        sk: 'CHARGE#91c0603b9fd0bddb50c87ee4cdec6ab09adfa270c96185583341cc2caa3a0185',
      },
    });
  });

  it("rejects a charge whose partition key exceeds DynamoDB's 2048 bytes, naming the account", () => {
    const accountId = 'a'.repeat(2048 - 'TENANT#acme#ACCOUNT##PERIOD#2026-11'.length);
    expect(keysOf({ accountId, amount: '1' }).ref.pk).toHaveLength(2048);
    let thrown: unknown;
    try {
      keysOf({ accountId: `${accountId}a`, amount: '1' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect(thrown).toMatchObject({
      code: 'invalid-field',
      field: 'accountId',
      reason: expect.stringMatching(/2048-byte key limit/),
    });
  });

  it('a grouped commit stays within the items of one transaction', () => {
    const itemsPerCommit = 2; // the charge and one total shard (every currency lives on it)
    expect(layout.maxGroupSize).toBe(50);
    expect(layout.maxGroupSize * itemsPerCommit).toBeLessThanOrEqual(
      DYNAMO_LIMITS.transactionItems,
    );
  });

  it('a dead-letter marker never takes the form of a cost claim written by earlier versions', () => {
    const messageId = 'a'.repeat(64);
    const marker = deadLetterMarkerKey('cost-events', messageId);
    expect(marker).toBe(`cost-events#dead-letter#${messageId}`);
    expect(marker).not.toMatch(/^cost-events#[0-9a-f]{64}$/);
  });

  it('keeps the documented keys of export items (existing executions must stay reachable)', () => {
    expect(exportPartitionKey('acme', 'aws-cur', '2026-11')).toBe('EXPORT#acme#aws-cur#2026-11');
    expect(CURRENT_SK).toBe('CURRENT');
    expect(executionSortKey('x1')).toBe('EXEC#x1');
    expect(chunkSortKeyPrefix('x1')).toBe('EXEC#x1#CHUNK#');
    expect(chunkSortKey('x1', '3.2')).toBe('EXEC#x1#CHUNK#3.2');
    expect(chunkPartSortKey('EXEC#x1#CHUNK#3.2', 1)).toBe('EXEC#x1#CHUNK#3.2#PART#01');
    expect(cursorSortKey('x1', 7)).toBe('CURSOR#x1#00007');
    expect(diffSortKey('2026-12-01T00:00:00.000Z', 'x1')).toBe('DIFF#2026-12-01T00:00:00.000Z#x1');
    expect(snapshotSortKey('aws-cur', 'x1')).toBe('SNAPSHOT#aws-cur#x1');
    expect(periodSourcesKey('acme', '2026-11')).toEqual({
      pk: 'EXPORT#acme#2026-11',
      sk: 'SOURCES',
    });
  });

  it('builds and reads ledger keys under the attribute names of the contract', () => {
    expect(ledgerKey('p', 's')).toEqual({ pk: { S: 'p' }, sk: { S: 's' } });
    expect(ledgerKeyOf({ pk: { S: 'p' }, sk: { S: 's' }, amount: { N: '1' } })).toEqual({
      pk: 'p',
      sk: 's',
    });
    expect(ledgerKeyOf({})).toEqual({ pk: '', sk: '' });
  });

  it('reads the account-period back from a ledger partition key, whatever the account holds', () => {
    for (const accountId of ['500000000001', 'a#PERIOD#2026-01', 'x#ACCOUNT#y'])
      expect(ledgerPartitionOf(ledgerPartitionKeyOf('acme', accountId, '2026-10'))).toEqual({
        tenant: 'acme',
        accountId,
        period: '2026-10',
      });
    expect(ledgerPartitionOf(exportPartitionKey('acme', 'aws', '2026-10'))).toBeUndefined();
  });

  it('names the kinds of an account-period item the close rule needs by sort key', () => {
    expect(partitionItemKindOf(totalShardSortKey(7))).toBe('stream-total');
    expect(partitionItemKindOf('TOTAL#USD')).toBe('stream-total');
    expect(partitionItemKindOf(snapshotSortKey('aws', 'e1'))).toBe('export-snapshot');
    expect(partitionItemKindOf('PERIOD')).toBe('period-state');
    expect(partitionItemKindOf('PERIOD#AUDIT#2026-11-01T00:00:00.000Z#1#close')).toBeUndefined();
    expect(partitionItemKindOf('CHARGE#ab')).toBeUndefined();
  });
});
