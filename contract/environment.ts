/**
 * The consumers' environment: every variable name, how lib/ writes it (`consumerEnvironment`,
 * values may be CDK tokens) and how lambda/ reads it back (the `read*` parsers, errors that name
 * the variable). Defaults shared with the CDK configuration live here too.
 */

import { inlineFunctionConfig, type FunctionConfig } from './function-config';
import { parseTenantBindingsJson, type TenantBindings } from './tenant-bindings';

/** Variable names by the setting they carry. */
export const ENV = {
  streamName: 'STREAM_NAME',
  queueKind: 'QUEUE_KIND',
  deliveryMode: 'DELIVERY_MODE',
  dlqUrl: 'DLQ_URL',
  dedupTableName: 'DEDUP_TABLE_NAME',
  dedupTtlSeconds: 'DEDUP_TTL_SECONDS',
  maxConcurrency: 'MAX_CONCURRENCY',
  ledgerTableName: 'LEDGER_TABLE_NAME',
  notificationsTopicArn: 'NOTIFICATIONS_TOPIC_ARN',
  /** The tenant topics' ARN pattern (+ trusted topic); the tenants themselves are in the function config. */
  tenantBindings: 'TENANT_BINDINGS',
  exportBucketName: 'EXPORT_BUCKET_NAME',
  /** The evidence archive's bucket; unset: the consumer archives nothing (tests and tools only). */
  archiveBucketName: 'ARCHIVE_BUCKET_NAME',
  /** The archive spool queue (`archiveDelivery=spool`): set, the consumer sends its records there instead of to S3. */
  archiveSpoolUrl: 'ARCHIVE_SPOOL_URL',
  exportSources: 'EXPORT_SOURCES',
  chunkQueueUrl: 'CHUNK_QUEUE_URL',
  exportDiffThreshold: 'EXPORT_DIFF_THRESHOLD',
  exportCsvSubchunkRows: 'EXPORT_CSV_SUBCHUNK_ROWS',
  exportParquetRowsPerTask: 'EXPORT_PARQUET_ROWS_PER_TASK',
  exportChunkMaxReceiveCount: 'EXPORT_CHUNK_MAX_RECEIVE_COUNT',
  /** A scheduled acquisition's step queue (its continuations); its DLQ is `DLQ_URL`. */
  acquisitionStepQueueUrl: 'ACQUISITION_STEP_QUEUE_URL',
  /** The step queue's redrive maxReceiveCount: the receive on which a failing step is dead-lettered. */
  acquisitionStepMaxReceiveCount: 'ACQUISITION_STEP_MAX_RECEIVE_COUNT',
  /** Providers whose stream charges always add (comma-separated slugs); the rest are superseded. */
  additiveSources: 'ADDITIVE_SOURCES',
  /** Stream-versus-export drift above this percentage of the export (and the floor) is notified. */
  provisionalDriftPercent: 'PROVISIONAL_DRIFT_PERCENT',
  provisionalDriftFloor: 'PROVISIONAL_DRIFT_FLOOR',
  autoCloseAfterDays: 'AUTO_CLOSE_AFTER_DAYS',
  totalShards: 'TOTAL_SHARDS',
  lateChargePolicy: 'LATE_CHARGE_POLICY',
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  logLevel: 'POWERTOOLS_LOG_LEVEL',
} as const;

export type EnvSetting = keyof typeof ENV;
export type EnvName = (typeof ENV)[EnvSetting];

export const QUEUE_KINDS = ['fifo', 'standard'] as const;
export type QueueKind = (typeof QUEUE_KINDS)[number];

/** `raw`: raw message delivery (every subscription of the app); `envelope`: the SNS notification JSON. */
export const DELIVERY_MODES = ['raw', 'envelope'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

/** What the ledger does with an effect whose billing period is closed (docs/ledger.md). */
export const LATE_CHARGE_POLICIES = ['roll-forward', 'reject'] as const;
export type LateChargePolicy = (typeof LATE_CHARGE_POLICIES)[number];
export const DEFAULT_LATE_CHARGE_POLICY: LateChargePolicy = 'roll-forward';
/** Total shards per account-period the cost consumer spreads commits over (1..32). */
export const DEFAULT_TOTAL_SHARDS = 8;
export const MAX_TOTAL_SHARDS = 32;

export const SECONDS_PER_DAY = 86_400;
/** Dedup claim lifetime: the CDK default (`dedupTtlDays`) and the consumers' fallback. */
export const DEFAULT_DEDUP_TTL_DAYS = 35;
export const DEFAULT_DEDUP_TTL_SECONDS = DEFAULT_DEDUP_TTL_DAYS * SECONDS_PER_DAY;
/** Records processed concurrently in one invocation: the CDK default (`inBatchConcurrency`) and the consumers' fallback. */
export const DEFAULT_MAX_CONCURRENCY = 8;
export const DEFAULT_QUEUE_KIND: QueueKind = 'standard';
/** How the consumers deliver their archive records (config `archiveDelivery`): through the spool and the archiver, or one S3 put per partition. */
export const ARCHIVE_DELIVERIES = ['spool', 'direct'] as const;
export type ArchiveDelivery = (typeof ARCHIVE_DELIVERIES)[number];
export const DEFAULT_ARCHIVE_DELIVERY: ArchiveDelivery = 'spool';
export const DEFAULT_DELIVERY_MODE: DeliveryMode = 'raw';
/** Export pipeline defaults: the CDK configuration's and the functions' fallbacks. */
export const DEFAULT_EXPORT_DIFF_THRESHOLD = '1';
export const DEFAULT_EXPORT_CSV_SUBCHUNK_ROWS = 50_000;
export const DEFAULT_EXPORT_PARQUET_ROWS_PER_TASK = 200_000;
/** Config `provisionalDriftThreshold`: stream-versus-export drift notified above 1 % of the export and 1 unit. */
export const DEFAULT_PROVISIONAL_DRIFT_PERCENT = '1';
export const DEFAULT_PROVISIONAL_DRIFT_FLOOR = '1';

/** Values of a consumer's environment; every one optional so tests and tools can set a subset. */
export type ConsumerEnvironment = {
  readonly [S in EnvSetting]?: S extends 'queueKind'
    ? QueueKind
    : S extends 'deliveryMode'
      ? DeliveryMode
      : S extends
            | 'dedupTtlSeconds'
            | 'maxConcurrency'
            | 'exportCsvSubchunkRows'
            | 'exportParquetRowsPerTask'
            | 'exportChunkMaxReceiveCount'
            | 'acquisitionStepMaxReceiveCount'
            | 'autoCloseAfterDays'
            | 'totalShards'
        ? number
        : string;
};

/** Environment variables of a consumer, in the order the values are given. */
export const consumerEnvironment = (values: ConsumerEnvironment): Record<string, string> => {
  const variables: Record<string, string> = {};
  for (const [setting, value] of Object.entries(values) as [
    EnvSetting,
    string | number | boolean | undefined,
  ][])
    if (value !== undefined) variables[ENV[setting]] = String(value);
  return variables;
};

export type EnvironmentSource = Readonly<Record<string, string | undefined>>;

const trimmed = (env: EnvironmentSource, name: EnvName): string | undefined =>
  env[name]?.trim() || undefined;

export const readRequired = (env: EnvironmentSource, name: EnvName): string => {
  const value = trimmed(env, name);
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
};

export const readOptional = (env: EnvironmentSource, name: EnvName): string | undefined =>
  trimmed(env, name);

export const readPositiveInteger = (
  env: EnvironmentSource,
  name: EnvName,
  fallback: number,
): number => {
  const text = trimmed(env, name);
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`Environment variable ${name} must be a positive integer`);
  return value;
};

export const readQueueKind = (env: EnvironmentSource): QueueKind => {
  const text = trimmed(env, ENV.queueKind) ?? DEFAULT_QUEUE_KIND;
  const kind = QUEUE_KINDS.find((candidate) => candidate === text);
  if (!kind) throw new Error(`Environment variable ${ENV.queueKind} must be fifo or standard`);
  return kind;
};

export const readDeliveryMode = (env: EnvironmentSource): DeliveryMode => {
  const text = trimmed(env, ENV.deliveryMode) ?? DEFAULT_DELIVERY_MODE;
  const mode = DELIVERY_MODES.find((candidate) => candidate === text);
  if (!mode)
    throw new Error(
      `Environment variable ${ENV.deliveryMode} must be raw or envelope (the subscription's raw ` +
        `message delivery on or off), got ${JSON.stringify(text)}`,
    );
  return mode;
};

/**
 * TENANT_BINDINGS of the cost consumer (contract/tenant-bindings.ts), its tenants from the function
 * config when the variable names none; unset: no tenant topics.
 */
export const readTenantBindings = (
  env: EnvironmentSource,
  /** The function's config (lambda/adapters/function-config.ts reads the bundled file); default: FUNCTION_CONFIG. */
  config: FunctionConfig | undefined = inlineFunctionConfig(env),
): TenantBindings | undefined => {
  const text = trimmed(env, ENV.tenantBindings);
  if (text === undefined) return undefined;
  return parseTenantBindingsJson(text, ENV.tenantBindings, config?.tenants);
};

export const readTotalShards = (env: EnvironmentSource): number => {
  const shards = readPositiveInteger(env, ENV.totalShards, DEFAULT_TOTAL_SHARDS);
  if (shards > MAX_TOTAL_SHARDS)
    throw new Error(`Environment variable ${ENV.totalShards} must be 1..${MAX_TOTAL_SHARDS}`);
  return shards;
};

/** ADDITIVE_SOURCES: comma-separated provider slugs (unset: none). */
export const readAdditiveSources = (env: EnvironmentSource): string[] =>
  (trimmed(env, ENV.additiveSources) ?? '')
    .split(',')
    .map((slug) => slug.trim())
    .filter((slug) => slug.length > 0);

export const readLateChargePolicy = (env: EnvironmentSource): LateChargePolicy => {
  const text = trimmed(env, ENV.lateChargePolicy) ?? DEFAULT_LATE_CHARGE_POLICY;
  const policy = LATE_CHARGE_POLICIES.find((candidate) => candidate === text);
  if (!policy)
    throw new Error(
      `Environment variable ${ENV.lateChargePolicy} must be ${LATE_CHARGE_POLICIES.join(' or ')}, got ${JSON.stringify(text)}`,
    );
  return policy;
};
