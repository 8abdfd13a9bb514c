import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { readPartitionTotals } from '../../lambda/adapters/ledger-reader';

/** The ledger partition of an account of tenant `acme` (the tenant of `costEvent`), as stored. */
export const acmePartition = (account: string, period = '2026-11'): string =>
  `TENANT#acme#ACCOUNT#${account}#PERIOD#${period}`;

/** The statement of an `acme` account's partition: per currency, its total and number of charges. */
export const totalsByCurrency = async (
  dynamo: DynamoDBClient,
  ledgerTable: string,
  account: string,
  period?: string,
): Promise<Record<string, { total: string; charges: number }>> =>
  Object.fromEntries(
    (await readPartitionTotals(dynamo, ledgerTable, acmePartition(account, period))).map((t) => [
      t.currency,
      { total: t.total, charges: t.charges },
    ]),
  );

/** Up to 10 messages waiting in a queue (a DLQ), with their attributes, without waiting. */
export const receiveWaiting = async (sqs: SQSClient, queueUrl: string): Promise<Message[]> => {
  const response = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
      WaitTimeSeconds: 0,
    }),
  );
  return response.Messages ?? [];
};
