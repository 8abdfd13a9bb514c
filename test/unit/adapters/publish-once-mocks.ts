/** Mocked dedup-table and SNS clients for the notifiers that publish once per key. */
import { createHash } from 'node:crypto';
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { lambdaContext } from '../../support/sqs-events';

const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };
const dynamoClient = new DynamoDBClient({ region: 'us-east-1', credentials });
const snsClient = new SNSClient({ region: 'us-east-1', credentials });
export const dynamo = mockClient(dynamoClient);
export const sns = mockClient(snsClient);
export const TOPIC = 'arn:aws:sns:us-east-1:123456789012:notifications';
export const TTL_SECONDS = 3600;
export const REMAINING_MS = 20_000;

/** The notifier's options on the mocked clients: table `dedup`, claims of `stream`. */
export const notifierOptions = (stream: string) => ({
  sns: snsClient,
  dynamo: dynamoClient,
  topicArn: TOPIC,
  dedupTable: 'dedup',
  stream,
  ttlSeconds: TTL_SECONDS,
});

/** A notifier in an invocation with REMAINING_MS left. */
export const inInvocation = <
  T extends { useContext: (context: ReturnType<typeof lambdaContext>) => void },
>(
  notifier: T,
): T => {
  notifier.useContext(lambdaContext(REMAINING_MS));
  return notifier;
};

/** Powertools stores `<prefix>#<md5 of the JSON payload>`; the payload is our key. */
export const storedPkOf = (stream: string, key: string): string =>
  `${stream}#${createHash('md5').update(JSON.stringify(key)).digest('base64')}`;

/** What DynamoDB answers when the claim `storedPk` is already there, with the item it holds. */
export const claimHeld = (storedPk: string, item: Record<string, unknown>) =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: {},
    Item: {
      pk: { S: storedPk },
      expiresAt: { N: String(Math.floor(Date.now() / 1000) + TTL_SECONDS) },
      ...item,
    },
  });

/** The claim as an earlier delivery left it after publishing: completed, with that call's nonce. */
export const claimCompleted = (storedPk: string) =>
  claimHeld(storedPk, {
    status: { S: 'COMPLETED' },
    data: { M: { nonce: { S: 'nonce-of-the-first-delivery' } } },
  });

/** Every call succeeds until a test says otherwise. */
export const answerSuccess = (): void => {
  dynamo.reset();
  sns.reset();
  dynamo.on(PutItemCommand).resolves({});
  dynamo.on(UpdateItemCommand).resolves({});
  dynamo.on(DeleteItemCommand).resolves({});
  sns.on(PublishCommand).resolves({ MessageId: 'm' });
};
