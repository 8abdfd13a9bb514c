import { createHash } from 'node:crypto';
import { Stack, StackProps } from 'aws-cdk-lib';
import * as bcm from 'aws-cdk-lib/aws-bcmdataexports';
import { Construct } from 'constructs';
import type { BillingDedupConfig } from './config';
import type { DataExportConfig } from './data-export-config';
import { dataQueryOf } from './data-export-queries';

/** The Data Exports API, and so its CloudFormation resource, lives in us-east-1 only. */
export const DATA_EXPORTS_REGION = 'us-east-1';

export interface DataExportsStackProps extends StackProps {
  readonly config: BillingDedupConfig;
  /** The export bucket (a token across stacks in the same region, else the name). */
  readonly exportBucketName: string;
  /** The export bucket's region: Data Exports delivers across regions. */
  readonly exportBucketRegion: string;
}

/**
 * The stage's AWS Data Exports (`dataExports`), each delivering into a tenant's prefix of the export
 * bucket. Its own stack because Data Exports exists in us-east-1 only, whatever the stage's region.
 */
export class DataExportsStack extends Stack {
  readonly exports: readonly bcm.CfnExport[];

  constructor(scope: Construct, id: string, props: DataExportsStackProps) {
    super(scope, id, props);
    this.exports = props.config.dataExports.map(
      (entry) =>
        new bcm.CfnExport(this, logicalIdOf(entry), {
          export: {
            name: entry.name,
            description: `billing-dedup ${props.config.stage}: ${entry.table === 'cur2' ? 'CUR 2.0' : 'FOCUS 1.0'} into ${entry.prefix}`,
            dataQuery: dataQueryOf(entry),
            destinationConfigurations: {
              s3Destination: {
                s3Bucket: props.exportBucketName,
                // Data Exports adds the `/` itself: `<prefix>/<name>/data/…`.
                s3Prefix: entry.prefix.replace(/\/$/, ''),
                s3Region: props.exportBucketRegion,
                s3OutputConfigurations: {
                  outputType: 'CUSTOM',
                  format: entry.format === 'parquet' ? 'PARQUET' : 'TEXT_OR_CSV',
                  compression: entry.format === 'parquet' ? 'PARQUET' : 'GZIP',
                  overwrite: entry.overwrite ? 'OVERWRITE_REPORT' : 'CREATE_NEW_REPORT',
                },
              },
            },
            refreshCadence: { frequency: 'SYNCHRONOUS' },
          },
        }),
    );
  }
}

/**
 * One logical id per export name, stable while the name is: letters and digits of the name plus a
 * short digest of it, so names differing only in punctuation (`a-b`, `a.b`) never collide.
 */
function logicalIdOf(entry: DataExportConfig): string {
  const letters = entry.name.replace(/[^0-9A-Za-z]/g, '').slice(0, 60);
  const digest = createHash('sha256').update(entry.name).digest('hex').slice(0, 8).toUpperCase();
  return `DataExport${letters}${digest}`;
}
