/**
 * The ports of one Google Cloud billing source: BigQuery over REST with a token of the tenant's
 * service account (its key read now from Secrets Manager), our export bucket, the source's cursor.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { gcpSourceId } from '../../contract/gcp-acquisition';
import { parseServiceAccountKey } from '../core/acquisition/gcp-secret';
import type { GcpPortsFactory } from '../core/acquisition/gcp-source-passes';
import { AcquisitionBucket } from './acquisition-bucket';
import type { SecretReader } from './azure-credentials';
import { BigQueryRest } from './bigquery-rest';
import { GcpAcquisitionCursor } from './gcp-acquisition-cursor';
import { serviceAccountToken } from './google-service-account-token';

export const gcpSourcePorts =
  (options: {
    dynamo: DynamoDBClient;
    s3: S3Client;
    readSecret: SecretReader;
    ledgerTable: string;
    exportBucket: string;
    /** Test seams: a local stand-in's endpoints. */
    bigqueryEndpoint?: string;
    tokenEndpoint?: string;
  }): GcpPortsFactory =>
  async (source) => {
    const key = parseServiceAccountKey(
      await options.readSecret(source.secretArn),
      source.secretArn,
    );
    return {
      bigquery: new BigQueryRest({
        project: source.jobProject,
        token: serviceAccountToken(
          key,
          options.tokenEndpoint ? { tokenEndpoint: options.tokenEndpoint } : {},
        ),
        ...(options.bigqueryEndpoint ? { endpoint: options.bigqueryEndpoint } : {}),
      }),
      bucket: new AcquisitionBucket(options.s3, options.exportBucket),
      cursor: new GcpAcquisitionCursor({
        client: options.dynamo,
        ledgerTable: options.ledgerTable,
        sourceId: gcpSourceId(source),
      }),
    };
  };
