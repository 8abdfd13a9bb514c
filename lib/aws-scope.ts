import { Aws } from 'aws-cdk-lib';
import type { ArnScope } from '../contract/publishers';

/** The deploying partition, account and region as CloudFormation pseudo parameters. */
export const AWS_SCOPE: ArnScope = {
  partition: Aws.PARTITION,
  account: Aws.ACCOUNT_ID,
  region: Aws.REGION,
};
