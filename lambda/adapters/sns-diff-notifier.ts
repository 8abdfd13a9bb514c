/**
 * Export diff notifications, published once per key through Powertools Idempotency on the dedup table
 * (the same claim-with-lease protocol as the alert notifier): a redelivered task that finds its
 * execution already switched gets the stored diff back and must not notify again.
 */
import { randomUUID } from 'node:crypto';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import type { ExportDiffMessage } from '../core/exports/diff-message';
import type { DiffNotifierPort } from '../core/exports/task-batch';
import { alertClaimPrefix, type DedupScope } from './table-layout';

export interface SnsDiffNotifierOptions extends DedupScope {
  sns: SNSClient;
  dynamo: DynamoDBClient;
  topicArn: string;
}

export class SnsDiffNotifier implements DiffNotifierPort {
  private readonly config: IdempotencyConfig;
  private readonly publishOnce: (
    key: string,
    message: ExportDiffMessage,
    nonce: string,
  ) => Promise<{ nonce: string }>;

  constructor(options: SnsDiffNotifierOptions) {
    this.config = new IdempotencyConfig({ expiresAfterSeconds: options.ttlSeconds });
    const publish = async (_key: string, message: ExportDiffMessage, nonce: string) => {
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
      persistenceStore: new DynamoDBPersistenceLayer({
        tableName: options.dedupTable,
        keyAttr: 'pk',
        expiryAttr: 'expiresAt',
        awsSdkV3Client: options.dynamo,
      }),
      config: this.config,
      keyPrefix: alertClaimPrefix(options.stream),
      dataIndexArgument: 0,
    });
  }

  /** The lease of an in-progress claim is the invocation's remaining time. */
  useContext(context: Context): void {
    this.config.registerLambdaContext(context);
  }

  async notifyOnce(key: string, message: ExportDiffMessage): Promise<'notified' | 'duplicate'> {
    const nonce = randomUUID();
    const response = await this.publishOnce(key, message, nonce);
    return response.nonce === nonce ? 'notified' : 'duplicate';
  }
}
