import * as path from 'path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** Repository root (this file lives in lib/constructs/). */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** Runtime of every consumer: the newest Node.js runtime aws-cdk-lib knows. */
export const CONSUMER_RUNTIME = lambda.Runtime.NODEJS_24_X;

/**
 * ESM bundles cannot `require`; CommonJS dependencies bundled into them still call it.
 * Define `require` from `import.meta.url` (aliased import so it cannot clash with bundled names).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __bdCreateRequire } from 'node:module'; const require = __bdCreateRequire(import.meta.url);";

export interface ConsumerFunctionProps {
  readonly functionName: string;
  /** Path relative to the project root, e.g. `lambda/handlers/cost-ledger.ts`. */
  readonly entry: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly logRetention: logs.RetentionDays;
  /** Log group removal policy (DESTROY in dev, RETAIN elsewhere). */
  readonly logRemovalPolicy: RemovalPolicy;
  readonly environment: Record<string, string>;
  readonly description?: string;
}

/**
 * A consumer Lambda: NodejsFunction bundled locally with esbuild (minified ESM + source maps,
 * AWS SDK v3 left to the runtime), ARM64, explicit log group with retention, and its own role
 * whose only baseline permission is writing to that log group. Every other permission is added
 * by the caller, statement by statement, on exact resources.
 */
export class ConsumerFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ConsumerFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.functionName}`,
    });
    this.logGroup.grantWrite(this.role);

    this.fn = new NodejsFunction(this, 'Function', {
      functionName: props.functionName,
      description: props.description,
      entry: path.join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      runtime: CONSUMER_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize,
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        banner: ESM_REQUIRE_BANNER,
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.EXTERNAL,
        sourcesContent: false,
        target: 'node24',
        externalModules: ['@aws-sdk/*'],
        forceDockerBundling: false,
      },
    });
  }
}
