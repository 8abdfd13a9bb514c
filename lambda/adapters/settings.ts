import {
  DEFAULT_DEDUP_TTL_SECONDS,
  DEFAULT_MAX_CONCURRENCY,
  ENV,
  type DeliveryMode,
  type EnvName,
  type EnvironmentSource,
  readDeliveryMode,
  readOptional,
  readPositiveInteger,
  readQueueKind,
  readRequired,
  readTenantBindings,
} from '../../contract/environment';
import type { TenantBindings } from '../../contract/tenant-bindings';
import { readFunctionConfig } from './function-config';

/** Function settings from environment variables, read once per container, with errors that name the variable. */
export interface ConsumerSettings {
  stream: string;
  fifo: boolean;
  /** `raw` (raw message delivery, the default) or `envelope` (SNS notification JSON). */
  deliveryMode: DeliveryMode;
  dlqUrl: string;
  dedupTable: string;
  ttlSeconds: number;
  concurrency: number;
}

export const consumerSettings = (env: EnvironmentSource): ConsumerSettings => {
  const queueKind = readQueueKind(env);
  return {
    stream: readRequired(env, ENV.streamName),
    fifo: queueKind === 'fifo',
    deliveryMode: readDeliveryMode(env),
    dlqUrl: readRequired(env, ENV.dlqUrl),
    dedupTable: readRequired(env, ENV.dedupTableName),
    ttlSeconds: readPositiveInteger(env, ENV.dedupTtlSeconds, DEFAULT_DEDUP_TTL_SECONDS),
    concurrency: readPositiveInteger(env, ENV.maxConcurrency, DEFAULT_MAX_CONCURRENCY),
  };
};

export const requiredSetting = (env: EnvironmentSource, name: EnvName): string =>
  readRequired(env, name);

/** LEDGER_TABLE_NAME of the cost consumer. */
export const ledgerTableName = (env: EnvironmentSource): string =>
  readRequired(env, ENV.ledgerTableName);

/** NOTIFICATIONS_TOPIC_ARN of the alert consumer. */
export const notificationsTopicArn = (env: EnvironmentSource): string =>
  readRequired(env, ENV.notificationsTopicArn);

/** The cost consumer's tenant bindings: the topic pattern from TENANT_BINDINGS, the tenants from the function config. */
export const tenantBindings = (env: EnvironmentSource): TenantBindings | undefined =>
  readTenantBindings(env, readFunctionConfig(env));

/** ARCHIVE_BUCKET_NAME of every consumer; unset only where nothing is archived (tests, tools). */
export const archiveBucketName = (env: EnvironmentSource): string | undefined =>
  readOptional(env, ENV.archiveBucketName);

/** ARCHIVE_SPOOL_URL of the consumers in spool mode (`archiveDelivery=spool`); unset: direct puts. */
export const archiveSpoolUrl = (env: EnvironmentSource): string | undefined =>
  readOptional(env, ENV.archiveSpoolUrl);

/** What the archiver needs: its stream name (logs, metrics), its DLQ for poison spool messages, the bucket. */
export interface ArchiverSettings {
  stream: string;
  dlqUrl: string;
  bucket: string;
}

export const archiverSettings = (env: EnvironmentSource): ArchiverSettings => ({
  stream: readRequired(env, ENV.streamName),
  dlqUrl: readRequired(env, ENV.dlqUrl),
  bucket: readRequired(env, ENV.archiveBucketName),
});
