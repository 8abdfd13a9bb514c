/**
 * The baseline: the cost-ledger job written the way the Powertools for AWS Lambda (TypeScript) docs
 * recommend for "idempotent SQS batch processing" — `BatchProcessor` / `SqsFifoPartialProcessorAsync` +
 * `processPartialResponse` + `makeIdempotent` with the `DynamoDBPersistenceLayer`, the Lambda context
 * registered so the in-progress lease is the remaining invocation time.
 *
 * Same job as lambda/handlers/cost-ledger.ts: same input formats and normalization (lambda/core), the
 * idempotency key is the content hash of the normalized event (not the SQS messageId, which changes on
 * every re-publish), same ledger layout (`pk = TENANT#t#ACCOUNT#a#PERIOD#yyyy-mm`, `sk = CHARGE#…` /
 * `TOTAL#<currency>`), same DLQ for poison. The ledger effect is written the way a careful engineer
 * does it without transactions:
 *   - a charge with a producer event id or a content identity: conditional PutItem of the charge (it may
 *     only create the item or overwrite it with identical content — a different content under the same
 *     eventId is a conflict, not an overwrite), then an UpdateItem `ADD total, charges` on the total;
 *   - a line item (restatement stream): strongly consistent GetItem of the charge, the same decision
 *     function as ours (`decideCharge`: applied / restated / duplicate / superseded / conflict), PutItem
 *     conditional on the version that was read (optimistic lock), then `ADD` of the delta to the total.
 * A lost optimistic lock throws: the record is reported as a batch item failure, Powertools deletes the
 * in-progress record and SQS redelivers it.
 */
import {
  BatchProcessor,
  EventType,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DEDUP_TABLE } from '../../contract/tables';
import { chargeItem, decimalOf } from '../../lambda/adapters/dynamo-ledger';
import { consumerSettings, ledgerTableName } from '../../lambda/adapters/settings';
import { SqsDeadLetters } from '../../lambda/adapters/sqs-dead-letters';
import { createTelemetry } from '../../lambda/adapters/telemetry';
import { decodeRecord } from '../../lambda/core/envelope';
import type { CostEvent } from '../../lambda/core/events';
import { parseCostEvent } from '../../lambda/core/formats';
import {
  chargeSortKey,
  ledgerPartitionKey,
  // The baseline design: one total item per partition and currency, every charge ADDs to it.
  legacyTotalSortKey as totalSortKey,
} from '../../lambda/adapters/table-layout';
import {
  billingPeriodOf,
  costContentHash,
  costIdentity,
  type CostIdentity,
} from '../../lambda/core/keys';
import {
  decideCharge,
  type StoredCharge,
  type TotalChange,
} from '../../lambda/core/ledger-decision';
import { attempt } from '../../lambda/core/rejection';

export interface BaselineClients {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
}

/** What the idempotent function receives; `contentHash` is the idempotency key (eventKeyJmesPath). */
interface ChargeInput {
  contentHash: string;
  event: CostEvent;
  identity: CostIdentity;
  pk: string;
  sk: string;
}

type ChargeOutcome = 'applied' | 'restated' | 'duplicate' | 'superseded' | 'voided' | 'conflict';

const S = (value: string): AttributeValue => ({ S: value });
const N = (value: string | number): AttributeValue => ({ N: String(value) });

export const createBaselineHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: BaselineClients = { dynamo: new DynamoDBClient({}), sqs: new SQSClient({}) },
) => {
  const settings = consumerSettings(env);
  const ledgerTable = ledgerTableName(env);
  const { dynamo } = clients;
  const telemetry = createTelemetry(env);
  const deadLetters = new SqsDeadLetters({
    client: clients.sqs,
    queueUrl: settings.dlqUrl,
    fifo: settings.fifo,
    stream: settings.stream,
  });

  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: settings.dedupTable,
    keyAttr: DEDUP_TABLE.partitionKey,
    expiryAttr: DEDUP_TABLE.expiresAt,
    awsSdkV3Client: dynamo,
  });
  const idempotencyConfig = new IdempotencyConfig({
    eventKeyJmesPath: 'contentHash',
    expiresAfterSeconds: settings.ttlSeconds,
  });

  const readCharge = async (pk: string, sk: string): Promise<StoredCharge | undefined> => {
    const { Item } = await dynamo.send(
      new GetItemCommand({
        TableName: ledgerTable,
        Key: { pk: S(pk), sk: S(sk) },
        ConsistentRead: true,
      }),
    );
    return Item
      ? {
          version: Number(Item.version?.N ?? '0'),
          contentHash: Item.contentHash?.S ?? '',
          amount: decimalOf(Item.amount),
          currency: Item.currency?.S ?? '',
        }
      : undefined;
  };

  const putCharge = async (
    charge: ChargeInput,
    condition: { expression: string; values: Record<string, AttributeValue> },
  ) => {
    await dynamo.send(
      new PutItemCommand({
        TableName: ledgerTable,
        Item: chargeItem({ ...charge, ref: { pk: charge.pk, sk: charge.sk } }, Date.now()),
        ConditionExpression: condition.expression,
        ...(Object.keys(condition.values).length > 0
          ? { ExpressionAttributeValues: condition.values }
          : {}),
      }),
    );
  };

  const addToTotal = async (charge: ChargeInput, change: TotalChange) => {
    const { event } = charge;
    await dynamo.send(
      new UpdateItemCommand({
        TableName: ledgerTable,
        Key: { pk: S(charge.pk), sk: S(totalSortKey(change.currency)) },
        UpdateExpression:
          'ADD #total :delta, #charges :charges SET currency = :currency, tenant = :tenant, accountId = :account, period = :period',
        ExpressionAttributeNames: { '#total': 'total', '#charges': 'charges' },
        ExpressionAttributeValues: {
          ':delta': N(change.delta),
          ':charges': N(change.charges),
          ':currency': S(change.currency),
          ':tenant': S(event.tenant),
          ':account': S(event.accountId),
          ':period': S(billingPeriodOf(event)),
        },
      }),
    );
  };

  /** The effect, run at most once per content hash by Powertools Idempotency. */
  const applyCharge = async (charge: ChargeInput): Promise<ChargeOutcome> => {
    const { event, identity } = charge;
    if (identity.kind !== 'line-item') {
      try {
        await putCharge(charge, {
          expression: 'attribute_not_exists(pk) OR contentHash = :hash',
          values: { ':hash': S(charge.contentHash) },
        });
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return 'conflict';
        throw error;
      }
      await addToTotal(charge, { currency: event.currency, delta: event.amount, charges: 1 });
      return 'applied';
    }
    const stored = await readCharge(charge.pk, charge.sk);
    const decision = decideCharge(
      { identity, contentHash: charge.contentHash, amount: event.amount, currency: event.currency },
      stored,
    );
    if (decision.outcome !== 'applied' && decision.outcome !== 'restated') return decision.outcome;
    await putCharge(
      charge,
      decision.outcome === 'restated'
        ? {
            expression: 'version = :version AND contentHash = :previous',
            values: {
              ':version': N(decision.previous.version),
              ':previous': S(decision.previous.contentHash),
            },
          }
        : { expression: 'attribute_not_exists(pk)', values: {} },
    );
    for (const change of decision.totals) await addToTotal(charge, change);
    return decision.outcome;
  };

  const applyChargeOnce = makeIdempotent(applyCharge, {
    persistenceStore,
    config: idempotencyConfig,
    keyPrefix: `${settings.stream}-baseline`,
  });

  const recordHandler = async (record: SQSRecord): Promise<string> => {
    const parsed = attempt(() => {
      const { event } = parseCostEvent(decodeRecord(record));
      const contentHash = costContentHash(event);
      const identity = costIdentity(event, contentHash);
      return {
        contentHash,
        event,
        identity,
        pk: ledgerPartitionKey(event),
        sk: chargeSortKey(identity),
      };
    });
    if (!parsed.ok) {
      // Poison never succeeds on a retry: straight to the DLQ instead of burning maxReceiveCount retries.
      await deadLetters.send(record, parsed.rejection);
      telemetry.logger.warn('record', { messageId: record.messageId, outcome: 'rejected' });
      return 'rejected';
    }
    const outcome = await applyChargeOnce(parsed.value);
    if (outcome === 'conflict') {
      await deadLetters.send(record, {
        code: 'conflict',
        field: parsed.value.identity.kind === 'event' ? 'eventId' : 'lineItemId',
        reason: `${parsed.value.identity.kind} id ${parsed.value.identity.id} seen with different content`,
      });
    }
    telemetry.logger.info('record', {
      messageId: record.messageId,
      outcome: outcome ?? 'duplicate',
    });
    return outcome ?? 'duplicate';
  };

  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    idempotencyConfig.registerLambdaContext(context);
    const response = settings.fifo
      ? await processPartialResponse(event, recordHandler, new SqsFifoPartialProcessorAsync(), {
          context,
          skipGroupOnError: true,
          throwOnFullBatchFailure: false,
        })
      : await processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
          context,
          throwOnFullBatchFailure: false,
        });
    telemetry.logger.info('batch', {
      records: event.Records.length,
      failed: response.batchItemFailures.length,
    });
    return response;
  };
};

let instance: ReturnType<typeof createBaselineHandler> | undefined;
export const handler = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
  (instance ??= createBaselineHandler())(event, context);
