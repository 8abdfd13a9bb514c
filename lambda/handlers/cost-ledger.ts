import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { readLateChargePolicy, readTotalShards } from '../../contract/environment';
import { DynamoChargeLeases } from '../adapters/charge-leases';
import { DynamoLedger } from '../adapters/dynamo-ledger';
import { DynamoPeriodStates } from '../adapters/dynamo-period-states';
import { ledgerTableName, tenantBindings } from '../adapters/settings';
import type { BatchObserver } from '../core/batch';
import { processCostBatch } from '../core/cost-processor';
import { LossRate, STANDARD_QUEUE_LOSS_PRIOR } from '../core/group-size';
import { TenantRouter } from '../core/tenant-binding';
import { batchHandler, onFirstInvocation, wireConsumer, type ConsumerClients } from './consumer';

/** The clients of the cost consumer (`s3` / `archiveStore`: where its archive puts, see ConsumerClients). */
export type CostLedgerClients = ConsumerClients;

/** Wires adapters to the core once per container; clients are injectable for local runs and tests. */
export const createCostLedgerHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: CostLedgerClients = { dynamo: new DynamoDBClient({}) },
  observe?: BatchObserver,
): ((event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>) => {
  const wiring = wireConsumer(env, clients);
  const { settings, deadLetters } = wiring;
  const tenants = new TenantRouter(tenantBindings(env));
  const totalShards = readTotalShards(env);
  const lateChargePolicy = readLateChargePolicy(env);
  const ledger = new DynamoLedger({
    client: clients.dynamo,
    ledgerTable: ledgerTableName(env),
    totalShards,
  });
  const periods = new DynamoPeriodStates({
    client: clients.dynamo,
    ledgerTable: ledgerTableName(env),
  });
  // How often this environment's grouped charges lose their race: it sizes the grouped transactions
  // and decides whether charges are leased before they are sent.
  const lossRate = new LossRate(settings.fifo ? undefined : STANDARD_QUEUE_LOSS_PRIOR);
  const leasedLossRate = new LossRate();
  const leases = new DynamoChargeLeases({
    client: clients.dynamo,
    dedupTable: settings.dedupTable,
    stream: settings.stream,
  });
  return batchHandler(
    wiring,
    (records, context) =>
      processCostBatch(records, {
        ...settings,
        lossRate,
        leasedLossRate,
        leases,
        ledger,
        deadLetters,
        tenants,
        periods,
        lateChargePolicy,
        ...(context ? { deadline: () => context.getRemainingTimeInMillis() } : {}),
      }),
    observe,
  );
};

export const handler = onFirstInvocation(() => createCostLedgerHandler());
