/**
 * The ports of one Google Cloud billing source: BigQuery over REST with a token of the tenant's
 * service account (its key read now from Secrets Manager), our export bucket, the source's cursor.
 */
import { gcpSourceId } from '../../contract/gcp-acquisition';
import { parseServiceAccountKey } from '../core/acquisition/gcp-secret';
import type { GcpPortsFactory } from '../core/acquisition/gcp-source-passes';
import { AcquisitionBucket } from './acquisition-bucket';
import { BigQueryRest } from './bigquery-rest';
import { GcpAcquisitionCursor } from './gcp-acquisition-cursor';
import { serviceAccountToken } from './google-service-account-token';
import { readTenantSecret } from './secrets-manager-reader';
import type { SourcePortsClients } from './source-ports-clients';

export const gcpSourcePorts =
  (
    options: SourcePortsClients & {
      /** Test seams: a local stand-in's endpoints. */
      bigqueryEndpoint?: string;
      tokenEndpoint?: string;
    },
  ): GcpPortsFactory =>
  async (source) => {
    const key = await readTenantSecret(
      options.readSecret,
      source.secretArn,
      parseServiceAccountKey,
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
