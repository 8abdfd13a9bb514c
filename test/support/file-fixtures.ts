/**
 * Local resources shared by the tests of one file: made before the first test, released after the last.
 * Read their fields inside tests (or hooks) only; at module load they are not there yet.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ExportStore } from '../../lambda/adapters/export-store';
import {
  createLedgerTables,
  localDynamo,
  startLocalSqs,
  type LedgerTables,
  type LocalSqs,
} from './aws-local';
import { exportStore } from './export-pipeline';

const useForFile = <T extends object>(
  make: () => Promise<T>,
  release: (made: T) => Promise<void> | void,
): T => {
  const shared = {} as T;
  beforeAll(async () => {
    Object.assign(shared, await make());
  });
  afterAll(() => release(shared));
  return shared;
};

export interface ExportLedger {
  dynamo: DynamoDBClient;
  tables: LedgerTables;
  store: ExportStore;
}

/** Fresh ledger tables on DynamoDB Local and an export store on them. */
export const useExportLedger = (): ExportLedger =>
  useForFile(
    async () => {
      const dynamo = localDynamo();
      const tables = await createLedgerTables(dynamo);
      return { dynamo, tables, store: exportStore(dynamo, tables.ledgerTable) };
    },
    ({ dynamo }) => dynamo.destroy(),
  );

export interface LocalQueuesAndLedger {
  sqs: LocalSqs;
  dynamo: DynamoDBClient;
  tables: LedgerTables;
}

/** An SQS emulator and fresh dedup + ledger tables on DynamoDB Local. */
export const useLocalQueuesAndLedger = (): LocalQueuesAndLedger =>
  useForFile(
    async () => {
      const sqs = await startLocalSqs();
      const dynamo = localDynamo();
      return { sqs, dynamo, tables: await createLedgerTables(dynamo) };
    },
    async ({ sqs, dynamo }) => {
      dynamo.destroy();
      await sqs.stop();
    },
  );
