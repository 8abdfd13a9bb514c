import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  FUNCTION_CONFIG_FILE_ENV,
  FUNCTION_CONFIG_FILE_NAME,
  type FunctionConfig,
} from '../../contract/function-config';

/** Repository root (this file lives in lib/constructs/). */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** Runtime of every consumer: the newest Node.js runtime aws-cdk-lib knows. */
export const CONSUMER_RUNTIME = lambda.Runtime.NODEJS_24_X;

/** A bundle's module format and whether the AWS SDK v3 is in it or left to the runtime's copy. */
export interface BundleShape {
  readonly format: 'esm' | 'cjs';
  readonly sdk: 'external' | 'bundled';
}

/**
 * The shape every consumer is deployed in: CommonJS with the AWS SDK bundled. `npm run bench` measures
 * module init of every shape with these settings on Node 24 (docs/benchmarks.md, "Cold start"): this one
 * loads fastest. The SDK from node_modules is many files to resolve and read; and an ES module importing
 * a Node built-in such as `node:http` builds its ESM facade, which evaluates every lazy export of it
 * (on Node 24 that loads undici), while `require` does not.
 */
export const CONSUMER_BUNDLE: BundleShape & { readonly target: string } = {
  format: 'cjs',
  sdk: 'bundled',
  target: 'node24',
};

export const CONSUMER_NODE_OPTIONS = '--enable-source-maps';

/**
 * ESM bundles cannot `require`; CommonJS dependencies bundled into them still call it.
 * Define `require` from `import.meta.url` (aliased import so it cannot clash with bundled names).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __bdCreateRequire } from 'node:module'; const require = __bdCreateRequire(import.meta.url);";

/**
 * A CommonJS bundle of ES modules that read `import.meta.url` (the Azure SDK's `@azure/storage-common`
 * calls `createRequire(import.meta.url)` at load): esbuild leaves it undefined in CommonJS, so it is
 * defined as the bundle file's URL.
 */
export const CJS_IMPORT_META_URL = {
  define: { 'import.meta.url': '__bdImportMetaUrl' },
  banner: "const __bdImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
} as const;

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
  /**
   * Configuration that grows with tenants / export prefixes, bundled as a file next to the code
   * (contract/function-config.ts) instead of the 4 KB environment. Must hold no CDK tokens.
   */
  readonly bundledConfig?: FunctionConfig;
  /** The bundle's modules read `import.meta.url` (see `CJS_IMPORT_META_URL`). */
  readonly importMetaUrl?: boolean;
}

/**
 * Writes `text` to a content-addressed file and returns the shell command that copies it into the
 * bundle. The copy runs after esbuild, so the asset hash (of the bundle output) covers the file: a
 * configuration change redeploys the function.
 */
function copyIntoBundle(text: string, outputDir: string): string[] {
  const directory = path.join(tmpdir(), 'billing-dedup-function-config');
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `${createHash('sha256').update(text).digest('hex')}.json`);
  writeFileSync(file, text);
  return [`cp "${file}" "${path.join(outputDir, FUNCTION_CONFIG_FILE_NAME)}"`];
}

/**
 * A consumer Lambda: NodejsFunction bundled locally with esbuild (minified, source maps, in the shape
 * of `CONSUMER_BUNDLE`), ARM64, explicit log group with retention, and its own role
 * whose only baseline permission is writing to that log group. Every other permission is added
 * by the caller, statement by statement, on exact resources.
 */
export class ConsumerFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  /** The bundled configuration as JSON text (the local run hands it to the handler inline). */
  readonly bundledConfig?: string;

  constructor(scope: Construct, id: string, props: ConsumerFunctionProps) {
    super(scope, id);

    const configText =
      props.bundledConfig === undefined ? undefined : JSON.stringify(props.bundledConfig);
    if (configText !== undefined && /\$\{Token\[/.test(configText))
      throw new Error(
        `${props.functionName}: bundledConfig cannot hold deploy-time values (tokens)`,
      );
    this.bundledConfig = configText;

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
        NODE_OPTIONS: CONSUMER_NODE_OPTIONS,
        ...props.environment,
        ...(configText !== undefined
          ? { [FUNCTION_CONFIG_FILE_ENV]: FUNCTION_CONFIG_FILE_NAME }
          : {}),
      },
      bundling: {
        ...(CONSUMER_BUNDLE.format === 'esm'
          ? { format: OutputFormat.ESM, banner: ESM_REQUIRE_BANNER }
          : {
              format: OutputFormat.CJS,
              ...(props.importMetaUrl
                ? {
                    define: { ...CJS_IMPORT_META_URL.define },
                    banner: CJS_IMPORT_META_URL.banner,
                  }
                : {}),
            }),
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.EXTERNAL,
        sourcesContent: false,
        target: CONSUMER_BUNDLE.target,
        ...(CONSUMER_BUNDLE.sdk === 'bundled'
          ? { bundleAwsSDK: true }
          : { externalModules: ['@aws-sdk/*'] }),
        forceDockerBundling: false,
        ...(configText !== undefined
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_input: string, outputDir: string) =>
                  copyIntoBundle(configText, outputDir),
              },
            }
          : {}),
      },
    });
  }
}
