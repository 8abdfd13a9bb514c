import { App, Aspects, Stack, Tags } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BillingDedupConfig, contextOfNode, resolveConfig } from './config';
import { dataExportsStackName, PROJECT, statefulStackName, statelessStackName } from './naming';
import { StatefulStack } from './stateful-stack';
import { DATA_EXPORTS_REGION, DataExportsStack } from './data-exports-stack';
import { StatelessStack } from './stateless-stack';
import { TenantStack, tenantsByStack } from './tenant-stack';
import { tenantStackName } from '../contract/tenant-stacks';

const CROSS_STACK_REFERENCES_FLAG = '@aws-cdk/core:defaultCrossStackReferences';
/** Server access logs delivered through a bucket policy (logging.s3.amazonaws.com), not ACLs. */
const ACCESS_LOGS_BUCKET_POLICY_FLAG = '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy';

export interface BillingDedupApp {
  readonly config: BillingDedupConfig;
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
  /** One per group of tenants (lib/tenant-stack.ts); none without `tenants`. */
  readonly tenantStacks: readonly TenantStack[];
  /** The Data Exports the stage creates (`dataExports`); undefined without them. */
  readonly dataExports?: DataExportsStack;
}

export interface BuildOptions {
  /** Apply the cdk-nag AwsSolutions pack (default true). */
  readonly nag?: boolean;
}

/**
 * Build both stacks of one stage into `app` from its context. Used by bin/billing-dedup.ts and
 * by the tests, so what is tested is what `cdk deploy` deploys.
 */
export function buildApp(app: App, options: BuildOptions = {}): BillingDedupApp {
  const config = resolveConfig(contextOfNode(app.node));
  // Same-environment references between our two stacks are classic CloudFormation exports.
  // Pinned explicitly (the flag's unset default is the same) so the behaviour cannot drift.
  if (app.node.tryGetContext(CROSS_STACK_REFERENCES_FLAG) === undefined) {
    app.node.setContext(CROSS_STACK_REFERENCES_FLAG, 'strong');
  }
  if (app.node.tryGetContext(ACCESS_LOGS_BUCKET_POLICY_FLAG) === undefined) {
    app.node.setContext(ACCESS_LOGS_BUCKET_POLICY_FLAG, true);
  }
  const env =
    config.account || config.region
      ? { account: config.account, region: config.region }
      : undefined;

  // Data Exports lives in us-east-1: from a stage elsewhere the created bucket's name crosses regions.
  const exportsCrossRegion =
    config.dataExports.length > 0 &&
    config.region !== DATA_EXPORTS_REGION &&
    config.exportBucketName === undefined;
  const stateful = new StatefulStack(app, statefulStackName(config.stage), {
    stackName: statefulStackName(config.stage),
    ...(exportsCrossRegion ? { crossRegionReferences: true } : {}),
    description: `billing-dedup ${config.stage}: dedup and ledger tables, KMS keys (retained)`,
    env,
    config,
    terminationProtection: config.deletionProtection,
  });

  const groups = tenantsByStack(config.tenants);
  const statelessName = statelessStackName(config.stage);
  const stateless = new StatelessStack(app, statelessName, {
    stackName: statelessName,
    tenantStackNames: [...groups.keys()].map((index) => tenantStackName(statelessName, index)),
    description: `billing-dedup ${config.stage}: topics, queues, consumers, alarms, dashboard`,
    env,
    config,
    dedupTable: stateful.dedupTable,
    ledgerTable: stateful.ledgerTable,
    dataKey: stateful.dataKey,
    messagingKey: stateful.messagingKey,
    statefulStackId: stateful.stackId,
    exportBucketName: stateful.exportBucketName,
    exportKeyArn: stateful.exportKeyArn,
    archive: {
      bucketName: stateful.archiveBucket.bucketName,
      keyArn: stateful.archiveKey.keyArn,
    },
  });
  stateless.addStackDependency(stateful);

  const tenantStacks = [...groups].map(([index, tenants]) => {
    const name = tenantStackName(statelessName, index);
    const stack = new TenantStack(app, name, {
      stackName: name,
      description: `billing-dedup ${config.stage}: cost-events topics, alarms and dashboard of ${tenants.length} tenants`,
      env,
      config,
      index,
      tenants,
      statelessStackName: statelessName,
      messagingKeyArn: stateful.messagingKey.keyArn,
    });
    // Imports the stateless stack's exports by name: deployed after it.
    stack.addStackDependency(stateless);
    return stack;
  });

  const dataExports =
    config.dataExports.length > 0
      ? new DataExportsStack(app, dataExportsStackName(config.stage), {
          stackName: dataExportsStackName(config.stage),
          description: `billing-dedup ${config.stage}: AWS Data Exports delivering into the export bucket`,
          env: { account: config.account, region: DATA_EXPORTS_REGION },
          ...(exportsCrossRegion ? { crossRegionReferences: true } : {}),
          config,
          exportBucketName: stateful.exportBucketName,
          // Required with dataExports (config rule), so always set here.
          exportBucketRegion: config.region ?? DATA_EXPORTS_REGION,
        })
      : undefined;
  dataExports?.addStackDependency(stateful);

  for (const stack of [
    stateful,
    stateless,
    ...tenantStacks,
    ...(dataExports ? [dataExports] : []),
  ] as Stack[]) {
    Tags.of(stack).add('project', PROJECT);
    Tags.of(stack).add('stage', config.stage);
  }

  // cdk-nag AwsSolutions: every suppression is listed with its reason in docs/infrastructure.md.
  // Each NagSuppressions.addResourceSuppressions call must name the rule, the resource,
  // `appliesTo` where the rule supports it, and a specific reason.
  if (options.nag ?? true) Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  return { config, stateful, stateless, tenantStacks, ...(dataExports ? { dataExports } : {}) };
}
