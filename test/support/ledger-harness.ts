import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import Big from 'big.js';
import { consumerEnvironment } from '../../contract/environment';
import { COST_STREAM } from '../../contract/streams';
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import type { BatchOutcome } from '../../lambda/core/batch';
import { processCostBatch } from '../../lambda/core/cost-processor';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import type {
  DeadLetterPort,
  LateChargePolicy,
  Rejection,
  SqsRecordInput,
} from '../../lambda/core/ports';
import type { LedgerTables } from './aws-local';
import { costEvent, type CostEventInput } from './cost-events';
import { acmePartition } from './ledger-checks';
import { sqsRecord } from './sqs-events';

/**
 * The real cost-ledger handler on DynamoDB Local tables, standard queue, for tests that only book
 * valid charges: its DLQ is an unreachable URL, so a rejection would fail the record, not vanish.
 */
export const costLedgerHandlerOn = (dynamo: DynamoDBClient, tables: LedgerTables) =>
  createCostLedgerHandler(
    consumerEnvironment({
      streamName: COST_STREAM,
      queueKind: 'standard',
      dlqUrl: 'http://unused.invalid/dlq',
      dedupTableName: tables.dedupTable,
      ledgerTableName: tables.ledgerTable,
      logLevel: 'SILENT',
    }),
    { dynamo, sqs: new SQSClient({ region: 'us-east-1' }) },
  );

/** A DLQ that keeps what it is sent. */
export class MemoryDeadLetters implements DeadLetterPort {
  readonly sent: { record: SqsRecordInput; rejection: Rejection }[] = [];

  send(record: SqsRecordInput, rejection: Rejection): Promise<void> {
    this.sent.push({ record, rejection });
    return Promise.resolve();
  }
}

/** The harness's clock: after every month the tests book in (2026-10 … 2026-12), so each may be closed. */
export const HARNESS_NOW = Date.parse('2027-01-15T00:00:00Z');

export interface LedgerHarnessOptions {
  totalShards?: number;
  lateChargePolicy?: LateChargePolicy;
  concurrency?: number;
}

/** The cost processor on DynamoDB Local tables, with the periods adapter, a memory DLQ and no waiting. */
export const ledgerHarness = (
  dynamo: DynamoDBClient,
  tables: LedgerTables,
  options: LedgerHarnessOptions = {},
) => {
  const ledger = new DynamoLedger({
    client: dynamo,
    ledgerTable: tables.ledgerTable,
    totalShards: options.totalShards ?? 8,
  });
  const periods = new DynamoPeriods({
    client: dynamo,
    ledgerTable: tables.ledgerTable,
    totalShards: options.totalShards ?? 8,
    now: () => HARNESS_NOW,
    pause: () => new Promise((resolve) => setTimeout(resolve, Math.random() * 5)),
  });
  const deadLetters = new MemoryDeadLetters();
  const deliverRecords = (records: SqsRecordInput[]): Promise<BatchOutcome> =>
    processCostBatch(records, {
      fifo: false,
      concurrency: options.concurrency ?? 8,
      ledger,
      deadLetters,
      periods,
      lateChargePolicy: options.lateChargePolicy ?? 'roll-forward',
      maxAttempts: 50,
      pause: () => new Promise((resolve) => setTimeout(resolve, Math.random() * 3)),
    });
  const deliver = (inputs: CostEventInput[]): Promise<BatchOutcome> =>
    deliverRecords(inputs.map((input) => sqsRecord(costEvent(input))));
  return { ledger, periods, deadLetters, deliver, deliverRecords };
};

/** One currency of an `acme` account-period's statement (zero when absent), with its status. */
export const statementOf = async (
  dynamo: DynamoDBClient,
  tables: LedgerTables,
  account: string,
  period: string,
  currency = 'USD',
) => {
  const rows = await readPartitionTotals(
    dynamo,
    tables.ledgerTable,
    acmePartition(account, period),
  );
  const row = rows.find((candidate) => candidate.currency === currency);
  return {
    total: row?.total ?? '0',
    charges: row?.charges ?? 0,
    status: row?.status ?? 'open',
    corrections: row?.corrections ?? [],
  };
};

export const sum = (amounts: readonly string[]): string =>
  amounts.reduce((acc, amount) => acc.plus(amount), new Big(0)).toFixed();

/** A chargePeriodStart inside a `yyyy-mm` period. */
export const inPeriod = (period: string, day = 3): string =>
  `${period}-${String(day).padStart(2, '0')}T14:00:00Z`;
