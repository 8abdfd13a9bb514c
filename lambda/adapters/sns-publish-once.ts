import { randomUUID } from 'node:crypto';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { jitteredBackoff, type Backoff } from './dynamo-kit/backoff';
import { DEDUP_EXPIRES_AT, DEDUP_PK, alertClaimPrefix, type DedupScope } from './table-layout';

export interface SnsMessage {
  subject: string;
  body: string;
  /** SNS message attributes (all strings) for subscription filter policies. */
  attributes: Record<string, string>;
}

export interface SnsPublishOnceOptions extends DedupScope {
  sns: SNSClient;
  dynamo: DynamoDBClient;
  topicArn: string;
  /** The invocation's remaining time, when known: retries of the COMPLETED mark never pause past it. */
  remainingMs?: () => number;
}

/** How many times marking a claim COMPLETED is tried before the error surfaces. */
const COMPLETION_ATTEMPTS = 6;
/** Up to 25 ms · 2^attempt between completion attempts, jittered. */
const COMPLETION_BACKOFF = { baseMs: 25, capMs: 1_600 };

/**
 * Marking a claim COMPLETED happens after the publish. If that write gives up (throttling outlasting
 * the SDK's own retries), the claim stays IN_PROGRESS, its lease expires and the next delivery
 * publishes again; so this write can get a longer, jittered retry than the SDK default.
 */
class CompletionRetryingPersistenceLayer extends DynamoDBPersistenceLayer {
  constructor(
    options: ConstructorParameters<typeof DynamoDBPersistenceLayer>[0],
    private readonly completionAttempts: number,
    private readonly completionBackoff: Backoff,
  ) {
    super(options);
  }

  protected override async _updateRecord(record: IdempotencyRecord): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await super._updateRecord(record);
      } catch (error) {
        if (attempt >= this.completionAttempts) throw error;
        await this.completionBackoff(attempt);
      }
    }
  }
}

/**
 * One SNS publish per key, through Powertools Idempotency on the dedup table: the claim is written
 * IN_PROGRESS with a lease of the invocation's remaining time, then COMPLETED with the response.
 * A duplicate gets the stored response back; the nonce in it tells which call published.
 */
export class SnsPublishOnce {
  private readonly config: IdempotencyConfig;
  private readonly publishOnce: (
    key: string,
    message: SnsMessage,
    nonce: string,
  ) => Promise<{ nonce: string }>;

  constructor(options: SnsPublishOnceOptions) {
    this.config = new IdempotencyConfig({ expiresAfterSeconds: options.ttlSeconds });
    const persistenceStore = new CompletionRetryingPersistenceLayer(
      {
        tableName: options.dedupTable,
        keyAttr: DEDUP_PK,
        expiryAttr: DEDUP_EXPIRES_AT,
        awsSdkV3Client: options.dynamo,
      },
      COMPLETION_ATTEMPTS,
      jitteredBackoff({
        ...COMPLETION_BACKOFF,
        ...(options.remainingMs ? { remainingMs: options.remainingMs } : {}),
      }),
    );
    const publish = async (
      _key: string,
      message: SnsMessage,
      nonce: string,
    ): Promise<{ nonce: string }> => {
      await options.sns.send(
        new PublishCommand({
          TopicArn: options.topicArn,
          Subject: message.subject,
          Message: message.body,
          MessageAttributes: Object.fromEntries(
            Object.entries(message.attributes).map(([name, value]) => [
              name,
              { DataType: 'String', StringValue: value },
            ]),
          ),
        }),
      );
      return { nonce };
    };
    this.publishOnce = makeIdempotent(publish, {
      persistenceStore,
      config: this.config,
      keyPrefix: alertClaimPrefix(options.stream),
      dataIndexArgument: 0,
    });
  }

  /** The lease of an in-progress claim is the invocation's remaining time. */
  useContext(context: Context): void {
    this.config.registerLambdaContext(context);
  }

  async publish(key: string, message: SnsMessage): Promise<'notified' | 'duplicate'> {
    const nonce = randomUUID();
    const response = await this.publishOnce(key, message, nonce);
    return response.nonce === nonce ? 'notified' : 'duplicate';
  }
}
