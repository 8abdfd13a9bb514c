/** The export functions' settings from their environment, read once per container. */
import {
  DEFAULT_EXPORT_CSV_SUBCHUNK_ROWS,
  DEFAULT_EXPORT_DIFF_THRESHOLD,
  DEFAULT_EXPORT_PARQUET_ROWS_PER_TASK,
  ENV,
  readAdditiveSources,
  readOptional,
  readPositiveInteger,
  readRequired,
  type EnvironmentSource,
  type EnvName,
} from '../../contract/environment';
import { DEFAULT_EXPORT_PROVIDER, parseExportSourcesJson } from '../../contract/export-sources';
import { readFunctionConfig } from './function-config';
import { exportSource, type ExportSource } from '../core/exports/source';
import { parseThreshold } from '../core/exports/snapshot';
import { DEFAULT_DRIFT_THRESHOLD } from '../core/exports/provisional-drift';
import { toleranceRatioOfPercent, type Tolerance } from '../core/reconciliation/compare';
import { parseThresholdText } from '../../contract/threshold';

export interface ExportSettings {
  bucket: string;
  /** The configured sources in the bucket (prefixes without their trailing `/`). */
  sources: ExportSource[];
  ledgerTable: string;
  defaultProvider: string;
}

export const exportSettings = (env: EnvironmentSource): ExportSettings => {
  const bucket = readRequired(env, ENV.exportBucketName);
  // EXPORT_SOURCES (older deployments, tests) or the bundled function config (contract/function-config.ts).
  const inline = readOptional(env, ENV.exportSources);
  let configured;
  try {
    configured = inline !== undefined ? parseExportSourcesJson(inline) : undefined;
  } catch (error) {
    throw new Error(`Environment variable ${ENV.exportSources}: ${(error as Error).message}`);
  }
  configured ??= readFunctionConfig(env).exportSources ?? [];
  return {
    bucket,
    sources: configured.map((source) =>
      exportSource({
        tenant: source.tenant,
        bucket,
        prefix: source.prefix.replace(/\/$/, ''),
        ...(source.source ? { source: source.source } : {}),
        ...(source.precedence ? { precedence: source.precedence } : {}),
      }),
    ),
    ledgerTable: readRequired(env, ENV.ledgerTableName),
    defaultProvider: DEFAULT_EXPORT_PROVIDER,
  };
};

export const plannerSettings = (env: EnvironmentSource) => ({
  chunkQueueUrl: readRequired(env, ENV.chunkQueueUrl),
  parquetRowsPerTask: readPositiveInteger(
    env,
    ENV.exportParquetRowsPerTask,
    DEFAULT_EXPORT_PARQUET_ROWS_PER_TASK,
  ),
});

/** An exact decimal ≥ 0 from `name`, or undefined when unset; anything else names the variable. */
const readDecimal = (env: EnvironmentSource, name: EnvName): string | undefined => {
  const text = readOptional(env, name);
  if (text === undefined) return undefined;
  const parsed = parseThresholdText(text);
  if (!parsed.ok)
    throw new Error(
      `Environment variable ${name} must be an exact decimal ≥ 0, got ${JSON.stringify(text)}`,
    );
  return parsed.value;
};

/** PROVISIONAL_DRIFT_PERCENT and PROVISIONAL_DRIFT_FLOOR (config `provisionalDriftThreshold`). */
export const readDriftThreshold = (env: EnvironmentSource): Tolerance => {
  const percent = readDecimal(env, ENV.provisionalDriftPercent);
  return {
    ratio: percent === undefined ? DEFAULT_DRIFT_THRESHOLD.ratio : toleranceRatioOfPercent(percent),
    floor: readDecimal(env, ENV.provisionalDriftFloor) ?? DEFAULT_DRIFT_THRESHOLD.floor,
  };
};

export const chunkWorkerSettings = (env: EnvironmentSource) => {
  const threshold = readOptional(env, ENV.exportDiffThreshold) ?? DEFAULT_EXPORT_DIFF_THRESHOLD;
  try {
    parseThreshold(threshold);
  } catch {
    throw new Error(
      `Environment variable ${ENV.exportDiffThreshold} must be an exact decimal ≥ 0, got ${JSON.stringify(threshold)}`,
    );
  }
  return {
    threshold,
    subChunkRows: readPositiveInteger(
      env,
      ENV.exportCsvSubchunkRows,
      DEFAULT_EXPORT_CSV_SUBCHUNK_ROWS,
    ),
    notificationsTopicArn: readRequired(env, ENV.notificationsTopicArn),
    /** Providers whose stream charges a switched-in export never makes provisional. */
    additiveSources: readAdditiveSources(env),
    /** Stream-versus-export drift above this is notified (kind `provisional-drift`). */
    driftThreshold: readDriftThreshold(env),
    /** The chunk queue's maxReceiveCount: a task failing on that receive fails its execution. */
    maxReceiveCount: readOptional(env, ENV.exportChunkMaxReceiveCount)
      ? readPositiveInteger(env, ENV.exportChunkMaxReceiveCount, 1)
      : undefined,
  };
};
