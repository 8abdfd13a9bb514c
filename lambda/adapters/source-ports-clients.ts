/** What every provider's source ports are built from: this account's clients and resources. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SecretReader } from './secrets-manager-reader';

export interface SourcePortsClients {
  dynamo: DynamoDBClient;
  s3: S3Client;
  readSecret: SecretReader;
  ledgerTable: string;
  exportBucket: string;
}
