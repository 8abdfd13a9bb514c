/**
 * The configuration rule table: every key a user can set, once — its parser (type, range,
 * unit), its default and its documentation. lib/config.ts derives the typed configuration,
 * the defaults and the validation from it; docs/infrastructure.md's configuration table is
 * checked against it (test/infra/config.test.ts). Rules that involve several keys are listed
 * in CROSS_FIELD_RULES.
 */
import {
  DEFAULT_DEDUP_TTL_DAYS,
  DEFAULT_EXPORT_CSV_SUBCHUNK_ROWS,
  DEFAULT_EXPORT_DIFF_THRESHOLD,
  DEFAULT_EXPORT_PARQUET_ROWS_PER_TASK,
  DEFAULT_LATE_CHARGE_POLICY,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_PROVISIONAL_DRIFT_FLOOR,
  DEFAULT_PROVISIONAL_DRIFT_PERCENT,
  DEFAULT_TOTAL_SHARDS,
  ENV,
  LATE_CHARGE_POLICIES,
  MAX_TOTAL_SHARDS,
  type LateChargePolicy,
  QUEUE_KINDS,
  ARCHIVE_DELIVERIES,
  DEFAULT_ARCHIVE_DELIVERY,
  type ArchiveDelivery,
  type QueueKind,
} from '../contract/environment';
import {
  DEFAULT_EXPORT_PROVIDER,
  type ExportSourceConfig,
  parseExportSources,
} from '../contract/export-sources';
import { STATELESS_OUTPUTS } from '../contract/outputs';
import { SLUG_PATTERN, SLUG_RULE } from '../contract/slugs';
import {
  DEFAULT_RECONCILIATION_FLOOR,
  DEFAULT_RECONCILIATION_LOOKBACK_DAYS,
  DEFAULT_RECONCILIATION_PROVIDER,
  RECONCILIATION_PROVIDERS,
  type ReconciliationProvider,
  DEFAULT_RECONCILIATION_TIME_UTC,
  DEFAULT_RECONCILIATION_TOLERANCE_PERCENT,
  RECONCILIATION_ENV,
} from '../contract/reconciliation';
import { parsePushEndpoint, type PushEndpointConfig } from '../contract/push-endpoint';
import { parseTenants, type TenantConfig } from '../contract/tenant-bindings';
import { parseThresholdText } from '../contract/threshold';
import {
  azureExportsProblem,
  parseAzureExports,
  type AzureExportConfig,
} from './azure-export-config';
import { DEFAULT_ACQUISITION_SCHEDULE, unknownTenantProblem } from './acquisition-config';
import {
  gcpBillingExportsProblem,
  parseGcpBillingExports,
  type GcpBillingExportConfig,
} from './gcp-billing-config';
import { parseDataExports, type DataExportConfig } from './data-export-config';
import { RESERVED_STAGE_WORDS, reservedWordsIn } from './naming';
import {
  Parser,
  checkedString,
  jsonValue,
  listOf,
  matching,
  matchingWithMessage,
  oneOf,
  wholeNumber,
  wholeNumberIn,
} from './config-parsers';

export type StreamKind = QueueKind;
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** CloudWatch Logs accepts only these retention values. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;

export interface ConfigRule<T> {
  readonly parser: Parser<T>;
  /** Value when the key is unset; a function derives it from the other resolved values. */
  readonly default: T | ((values: Readonly<Record<string, unknown>>) => T);
  /** How the docs show the default when it is derived or absent. */
  readonly defaultDoc?: string;
  /** The "meaning" column of the docs table (Markdown). */
  readonly doc: string;
}

const rule = <T>(r: ConfigRule<T>): ConfigRule<T> => r;

/** Seven years (7 × 365 + 2 leap days): the archive's default retention. */
export const DEFAULT_ARCHIVE_RETENTION_DAYS = 2557;
/** Upper bound of the retention keys (100 years). */
const MAX_RETENTION_DAYS = 36_500;

const ACCOUNT_RE = /^\d{12}$/;
const REGION_RE = /^[a-z]{2}(?:-[a-z]+)+-\d$/;
const ROLE_ARN_RE = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
/** STS `AssumeRole` ExternalId: 2-1224 characters `[\w+=,.@:/-]`. */
const EXTERNAL_ID_RE = /^[\w+=,.@:/-]{2,1224}$/;
/** A role ARN in which `*` may stand for any part of the path or name (aws:PrincipalArn patterns). */
const ROLE_ARN_PATTERN_RE = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/*-]{1,512}$/;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const STAGE_RE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const STAGE_MAX = 16;

function checkPrincipal(item: string): string | undefined {
  if (ACCOUNT_RE.test(item) || ROLE_ARN_RE.test(item)) return undefined;
  return 'is neither a 12-digit account ID nor an IAM role ARN (arn:aws:iam::123456789012:role/name)';
}

function checkRolePattern(item: string): string | undefined {
  if (ROLE_ARN_PATTERN_RE.test(item)) return undefined;
  return 'is not an IAM role ARN (arn:aws:iam::123456789012:role/name; `*` allowed in the name)';
}

function checkEmail(item: string): string | undefined {
  return EMAIL_RE.test(item) ? undefined : 'is not an e-mail address';
}

/** S3 general purpose bucket naming rules. */
function checkBucketName(name: string): string | undefined {
  if (
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) &&
    !name.includes('..') &&
    !/^\d+\.\d+\.\d+\.\d+$/.test(name) &&
    !/^(xn--|sthree-)/.test(name) &&
    !/(-s3alias|--ol-s3)$/.test(name)
  )
    return undefined;
  return 'must be an S3 bucket name (3-63 lower-case letters, digits, "." and "-", starting and ending with a letter or digit)';
}

const KMS_KEY_ARN_RE = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]{1,128}$/;

function checkKmsKeyArn(arn: string): string | undefined {
  return KMS_KEY_ARN_RE.test(arn)
    ? undefined
    : 'must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<key-id>)';
}

/** Config `provisionalDriftThreshold`: like the reconciliation's tolerance, a percentage and a floor. */
export interface ProvisionalDriftThreshold {
  readonly percent: string;
  readonly floor: string;
}

function parseDriftThreshold(value: unknown): ProvisionalDriftThreshold {
  const problem = (why: string) =>
    new Error(`provisionalDriftThreshold: ${why}, e.g. {"percent": "1", "floor": "1"}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw problem('must be a JSON object {"percent", "floor"}');
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => key !== 'percent' && key !== 'floor');
  if (unknown.length > 0) throw problem(`unknown field(s) ${unknown.join(', ')}`);
  const decimal = (name: 'percent' | 'floor'): string => {
    const raw = fields[name];
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string') throw problem(`${name} is missing`);
    const parsed = parseThresholdText(text);
    if (!parsed.ok) throw problem(`${name} must be an exact decimal ≥ 0 (${parsed.reason})`);
    return parsed.value;
  };
  return { percent: decimal('percent'), floor: decimal('floor') };
}

function checkThreshold(text: string): string | undefined {
  return parseThresholdText(text).ok
    ? undefined
    : 'must be an exact decimal ≥ 0 such as "1" or "0.01" (an amount in the billing currency)';
}

/**
 * The most export prefixes a stage takes: what test/infra/scale.test.ts synthesizes within every deploy
 * limit (the list is bundled with the export functions' code, contract/function-config.ts; each prefix
 * adds one notification rule of the bucket).
 */
export const MAX_EXPORT_SOURCES = 200;

function exportSourcesWithinCap(value: unknown): ExportSourceConfig[] {
  const sources = parseExportSources(value);
  if (sources.length > MAX_EXPORT_SOURCES)
    throw new Error(
      `exportSources: ${sources.length} prefixes, over the ${MAX_EXPORT_SOURCES} a stage takes; use one prefix ` +
        'per tenant with its exports under it, or split the tenants across stages',
    );
  return sources;
}

/**
 * The most tenants a stage takes: what test/infra/scale.test.ts synthesizes within every deploy limit
 * (their topics, subscriptions and alarms are spread over the tenant stacks, lib/tenant-stack.ts; their
 * bindings are bundled with the cost consumer's code).
 */
export const MAX_TENANTS = 1000;

function tenantsWithinCap(value: unknown): TenantConfig[] {
  const tenants = parseTenants(value, checkPrincipal);
  if (tenants.length > MAX_TENANTS)
    throw new Error(
      `tenants: ${tenants.length} tenants, over the ${MAX_TENANTS} a stage takes; split the tenants across stages`,
    );
  return tenants;
}

const num = (values: Readonly<Record<string, unknown>>, key: string): number =>
  values[key] as number;

/** Key order is the order of the docs table. */
export const CONFIG_RULES = {
  stage: rule<string>({
    parser: matchingWithMessage(
      STAGE_RE,
      STAGE_MAX,
      `must be 1-${STAGE_MAX} characters of lower-case letters, digits and single hyphens, ` +
        'starting with a letter (e.g. "dev", "prod", "eu-prod")',
      `1-${STAGE_MAX} lower-case letters, digits, single hyphens; starts with a letter`,
    ),
    default: 'dev',
    doc:
      'stage name, part of every name (`billing-dedup-<stage>-…`). Tables get deletion protection (and the stateful ' +
      'stack termination protection) in every stage except `dev`; log groups are retained outside `dev`',
  }),
  account: rule<string | undefined>({
    parser: matching(ACCOUNT_RE, 'a 12-digit AWS account ID'),
    default: undefined,
    defaultDoc: 'unset',
    doc: 'account of the target environment; unset → environment-agnostic',
  }),
  region: rule<string | undefined>({
    parser: matching(
      REGION_RE,
      'an AWS region name such as "eu-west-1"',
      'an AWS region name such as `eu-west-1`',
    ),
    default: undefined,
    defaultDoc: 'unset',
    doc: 'region of the target environment; unset → environment-agnostic',
  }),
  costStreamKind: rule<StreamKind>({
    parser: oneOf<StreamKind>(QUEUE_KINDS, (s) => s.toLowerCase()),
    default: 'fifo',
    doc:
      '`fifo`: FIFO cost-events topic → FIFO queue + FIFO DLQ. `standard`: standard topic/queue/DLQ for very high ' +
      'volume (the ledger is order-independent). Changing it replaces the queues: see "Replacing the queues"',
  }),
  dedupTtlDays: rule<number>({
    parser: wholeNumber(1, 3650, 'days'),
    default: DEFAULT_DEDUP_TTL_DAYS,
    doc: `lifetime of a dedup claim (\`${ENV.dedupTtlSeconds}\`). Must be ≥ \`queueRetentionDays\` + \`dlqRetentionDays\` + 1`,
  }),
  // SQS accepts retention from 60 s to 14 days; we work in whole days.
  queueRetentionDays: rule<number>({
    parser: wholeNumber(1, 14, 'days'),
    default: 14,
    doc: 'retention of the source queues',
  }),
  dlqRetentionDays: rule<number>({
    parser: wholeNumber(1, 14, 'days'),
    default: 14,
    doc:
      'retention of the DLQs. A standard DLQ keeps the original enqueue time, so keep it ≥ `queueRetentionDays` ' +
      '(warning otherwise)',
  }),
  functionTimeoutSeconds: rule<number>({
    parser: wholeNumber(3, 900, 'seconds'),
    default: 30,
    doc: 'consumer Lambda timeout',
  }),
  functionMemoryMb: rule<number>({
    parser: wholeNumber(128, 10240, 'MB'),
    default: 512,
    doc: 'consumer Lambda memory',
  }),
  maxReceiveCount: rule<number>({
    parser: wholeNumber(1, 1000, 'receives'),
    default: 5,
    doc: 'receives before SQS moves a message to the DLQ; < 3 is an error, 3-4 a warning',
  }),
  batchSize: rule<number>({
    parser: wholeNumber(1, 10000, 'records'),
    default: 10,
    doc: 'records per invocation; > 10 needs `maxBatchingWindowSeconds` ≥ 1 and `costStreamKind=standard`',
  }),
  maxBatchingWindowSeconds: rule<number>({
    parser: wholeNumber(0, 300, 'seconds'),
    default: 5,
    doc: 'batching window of the standard queues. FIFO queues have none (Lambda rule)',
  }),
  visibilityTimeoutSeconds: rule<number>({
    parser: wholeNumber(0, 43200, 'seconds'),
    // Derived, so that changing the timeout never breaks the visibility invariant.
    default: (values) =>
      6 * num(values, 'functionTimeoutSeconds') + num(values, 'maxBatchingWindowSeconds'),
    defaultDoc: '6 × `functionTimeoutSeconds` + `maxBatchingWindowSeconds` (= `185`)',
    doc: 'source queue visibility timeout; must be ≥ 6 × timeout + batching window',
  }),
  eventSourceMaxConcurrency: rule<number>({
    parser: wholeNumber(2, 1000, 'concurrent invocations'),
    default: 10,
    doc: 'event source mapping maximum concurrency per queue',
  }),
  inBatchConcurrency: rule<number>({
    parser: wholeNumber(1, 256, 'records'),
    default: DEFAULT_MAX_CONCURRENCY,
    doc: `records processed concurrently inside one invocation (\`${ENV.maxConcurrency}\`)`,
  }),
  logLevel: rule<LogLevel>({
    parser: oneOf<LogLevel>(['DEBUG', 'INFO', 'WARN', 'ERROR'], (s) => s.toUpperCase()),
    default: 'INFO',
    doc: `\`${ENV.logLevel}\` (case-insensitive)`,
  }),
  logRetentionDays: rule<number>({
    parser: wholeNumberIn(LOG_RETENTION_DAYS, 'days', 'CloudWatch Logs accepts only'),
    default: 30,
    doc: 'retention of the function log groups and of the export bucket’s server access logs',
  }),
  oldestMessageAgeAlarmSeconds: rule<number>({
    parser: wholeNumber(60, 14 * 86400, 'seconds'),
    default: 900,
    doc: 'threshold of the "oldest message age" alarms',
  }),
  costEventsPublishers: rule<readonly string[]>({
    parser: listOf('12-digit account IDs or IAM role ARNs', checkPrincipal),
    default: [],
    doc: 'allowed to publish to the cost-events topic (topic policy + use of the messaging key through SNS)',
  }),
  tenants: rule<readonly TenantConfig[]>({
    parser: jsonValue(
      'JSON list of `{"id", "publishers", "sources"?, "maxEventsPerMinute"?}`: tenant slug, account IDs or role ARNs, source slugs, whole number',
      tenantsWithinCap,
    ),
    default: [],
    doc:
      'tenant-bound publishing (docs/threat-model.md): each tenant gets its own cost-events topic, only its ' +
      '`publishers` may publish there, and every message from it is booked to that tenant (a message naming ' +
      'another tenant, or a source outside `sources`, is dead-lettered). `maxEventsPerMinute` adds a ceiling ' +
      'alarm. Empty: one shared topic whose publishers are all trusted',
  }),
  trustedCostTopic: rule<boolean>({
    parser: jsonValue('`true` or `false`', (value) => {
      if (typeof value !== 'boolean') throw new Error('trustedCostTopic: must be true or false');
      return value;
    }),
    default: false,
    doc:
      'with `tenants`: keep the shared cost-events topic too, for trusted internal producers that name the ' +
      'tenant in the message (publishers: `costEventsPublishers`). Without `tenants` the shared topic always exists',
  }),
  budgetAlertsPublishers: rule<readonly string[]>({
    parser: listOf('12-digit account IDs or IAM role ARNs', checkPrincipal),
    default: [],
    doc: 'same for the budget-alerts topic (AWS Budgets and Cost Anomaly Detection are always allowed)',
  }),
  redriveOperators: rule<readonly string[]>({
    parser: listOf('IAM role ARNs, `*` allowed in the name', checkRolePattern),
    default: [],
    doc:
      'roles allowed to redrive DLQ messages into the source queues, besides the stack’s own DLQ operator role ' +
      `(output \`${STATELESS_OUTPUTS.dlqOperatorRoleArn}\`); nobody else may send to a queue directly`,
  }),
  notificationEmails: rule<readonly string[]>({
    parser: listOf('e-mail addresses', checkEmail),
    default: [],
    doc: 'e-mail subscriptions of the notifications topic',
  }),
  opsEmails: rule<readonly string[]>({
    parser: listOf('e-mail addresses', checkEmail),
    default: [],
    doc: 'e-mail subscriptions of the ops (alarm) topic',
  }),
  exportSources: rule<readonly ExportSourceConfig[]>({
    parser: jsonValue(
      'JSON list of `{"tenant", "prefix", "source"?, "precedence"?}`: tenant slug, key prefix ending in `/`, provider slug, export names',
      exportSourcesWithinCap,
    ),
    default: [],
    doc:
      'which tenant owns which key prefix of the export bucket (the S3 path prefix of a Data Export); prefixes ' +
      `must not contain one another; \`source\` is the provider of rows without ProviderName (default \`${DEFAULT_EXPORT_PROVIDER}\`). ` +
      'Where two exports of a tenant cover the same account and month only one counts: `precedence` lists export names ' +
      'under the prefix, most authoritative first; without it the export that became current first for the month counts. ' +
      'Empty: every delivered manifest is dead-lettered with a reason naming this key',
  }),
  dataExports: rule<readonly DataExportConfig[]>({
    parser: jsonValue(
      'JSON list of `{"prefix", "name", "table", "format"?, "overwrite"?, "granularity"?}`: an exportSources prefix, export name, `cur2` or `focus`, `parquet` or `csv`, true/false, `hourly`/`daily`/`monthly`',
      parseDataExports,
    ),
    default: [],
    doc:
      'AWS Data Exports the stage creates itself (stack `<stage>-data-exports`, in us-east-1 where Data Exports lives), ' +
      'each delivering CUR 2.0 or FOCUS into a tenant’s prefix of the export bucket. Needs `region`; they export this ' +
      'account’s costs (the whole organisation’s when it is the management account): see docs/exports.md "Data Exports the stack creates"',
  }),
  azureExports: rule<readonly AzureExportConfig[]>({
    parser: jsonValue(
      'JSON list of `{"tenant", "storageAccountUrl", "container", "exportFolder", "secretArn", "prefix"?, "schedule"?}`: tenant slug, `https://<account>.blob.core.windows.net`, container, `<rootFolderPath>/<export name>/`, complete Secrets Manager ARN, one of the tenant’s exportSources prefixes, `rate(…)`/`cron(…)`',
      parseAzureExports,
    ),
    default: [],
    defaultDoc: 'none (off)',
    doc:
      'Azure Cost Management exports (FOCUS) the stage copies into the tenant’s export prefix, where the planner ' +
      `takes them like any export: one function, one EventBridge Scheduler schedule per tenant (default \`${DEFAULT_ACQUISITION_SCHEDULE}\`), ` +
      'the client secret read from `secretArn` at each run; see docs/azure-acquisition.md',
  }),
  gcpBillingExports: rule<readonly GcpBillingExportConfig[]>({
    parser: jsonValue(
      'JSON list of `{"tenant", "jobProject", "table", "location", "secretArn", "prefix"?, "exportName"?, "schedule"?}`: tenant slug, project id the jobs run in, `<project>.<dataset>.gcp_billing_export_(resource_)v1_…`, the dataset’s location, complete Secrets Manager ARN, one of (or a folder inside one of) the tenant’s exportSources prefixes, folder slug, `rate(…)`/`cron(…)`',
      parseGcpBillingExports,
    ),
    default: [],
    defaultDoc: 'none (off)',
    doc:
      'Google Cloud billing export tables (BigQuery, standard or detailed usage cost) the stage reads into the tenant’s ' +
      'export prefix as FOCUS files the planner takes like any export: one function, one EventBridge Scheduler schedule ' +
      `per tenant (default \`${DEFAULT_ACQUISITION_SCHEDULE}\`), the service-account key read from \`secretArn\` at each pass; ` +
      'see docs/gcp-acquisition.md',
  }),
  acquisitionStepMaxReceiveCount: rule<number>({
    parser: wholeNumber(3, 1000, 'receives'),
    default: 5,
    doc:
      'receives of an acquisition step (`azureExports`, `gcpBillingExports`: a pass continued through the provider’s ' +
      'step queue) whose pass keeps failing before it is dead-lettered with the provider’s error; a receive is retried ' +
      'after the queue’s visibility timeout (6 × the function’s 15 minutes)',
  }),
  exportBucketName: rule<string | undefined>({
    parser: checkedString('an S3 bucket name', checkBucketName),
    default: undefined,
    defaultDoc: 'unset (the stateful stack creates the bucket)',
    doc:
      'use this existing bucket (same account and region) instead of creating one. Its policy, encryption and ' +
      'versioning stay yours: see docs/exports.md "Deploy"',
  }),
  exportBucketKeyArn: rule<string | undefined>({
    parser: checkedString('a KMS key ARN', checkKmsKeyArn),
    default: undefined,
    defaultDoc: 'unset',
    doc: 'customer managed key of the objects in `exportBucketName` (the export functions may decrypt with it, through S3 only); only with `exportBucketName`',
  }),
  exportVersionRetentionDays: rule<number>({
    parser: wholeNumber(1, MAX_RETENTION_DAYS, 'days'),
    // Derived: an export file version an execution pinned is evidence as long as the archive is.
    default: (values) => num(values, 'archiveRetentionDays'),
    defaultDoc: '`archiveRetentionDays` (= `2557`)',
    doc: 'the created export bucket keeps a replaced or deleted object version this long (an overwriting export replaces its files); at least `archiveRetentionDays`, so every pinned file version outlives the archive that points to it',
  }),
  archiveRetentionDays: rule<number>({
    parser: wholeNumber(1, MAX_RETENTION_DAYS, 'days'),
    default: DEFAULT_ARCHIVE_RETENTION_DAYS,
    doc: 'the evidence archive keeps every archived batch (and every replaced version of it) this long, then expires it (7 years by default)',
  }),
  archiveInfrequentAccessAfterDays: rule<number>({
    parser: wholeNumber(30, MAX_RETENTION_DAYS, 'days'),
    default: 30,
    doc: 'archived batches move to S3 Standard-IA this many days after they are written (S3 requires ≥ 30)',
  }),
  archiveGlacierInstantAfterDays: rule<number>({
    parser: wholeNumber(90, MAX_RETENTION_DAYS, 'days'),
    default: 90,
    doc: 'archived batches move to S3 Glacier Instant Retrieval this many days after they are written; at least 30 days after `archiveInfrequentAccessAfterDays` (S3 rule)',
  }),
  archiveObjectLock: rule<boolean>({
    parser: jsonValue('`true` or `false`', (value) => {
      if (typeof value !== 'boolean') throw new Error('archiveObjectLock: must be true or false');
      return value;
    }),
    default: false,
    doc: 'S3 Object Lock in compliance mode on the archive bucket, every object locked for `archiveRetentionDays` (nobody, root included, can delete or shorten it). Decide before the first deploy: Object Lock cannot be turned off',
  }),
  archiveDelivery: rule<ArchiveDelivery>({
    parser: oneOf<ArchiveDelivery>(ARCHIVE_DELIVERIES, (s) => s.toLowerCase()),
    default: DEFAULT_ARCHIVE_DELIVERY,
    doc:
      'how the consumers archive each batch before acknowledging it. `spool`: one SQS message per invocation to the ' +
      '`archive-spool` queue (`ARCHIVE_SPOOL_URL`), written to the bucket by the `archiver` function, one object per ' +
      'partition of up to 1,000 spool messages; only the archiver may put objects, the consumers only `oversize-` keys ' +
      '(a record too large for a 256 KiB message). `direct`: one S3 put per partition of each invocation. The spool and ' +
      'the archiver exist in both modes, so switching never strands a spooled record',
  }),
  exportDiffNotifyThreshold: rule<string>({
    parser: checkedString('an exact decimal ≥ 0', checkThreshold),
    default: DEFAULT_EXPORT_DIFF_THRESHOLD,
    doc: `an account-currency whose total changes by at least this much between two exports is notified (\`${ENV.exportDiffThreshold}\`)`,
  }),
  additiveSources: rule<readonly string[]>({
    parser: listOf('provider slugs (`aws`, `gcp`, …)', (item) =>
      SLUG_PATTERN.test(item) ? undefined : `is not a provider slug: ${SLUG_RULE} (e.g. "aws")`,
    ),
    default: [],
    defaultDoc: 'none (every provider supersedes)',
    doc:
      `providers whose stream charges always add to the ledger total (\`${ENV.additiveSources}\`); by default a ` +
      "provider's stream charges of an account-period are provisional once its export is counted there (recorded at " +
      'each export switch), see docs/ledger.md',
  }),
  provisionalDriftThreshold: rule<ProvisionalDriftThreshold>({
    parser: jsonValue(
      'JSON `{"percent", "floor"}`: exact decimals ≥ 0 (percent of the export, amount in the billing currency)',
      parseDriftThreshold,
    ),
    default: { percent: DEFAULT_PROVISIONAL_DRIFT_PERCENT, floor: DEFAULT_PROVISIONAL_DRIFT_FLOOR },
    defaultDoc: `\`{"percent": "${DEFAULT_PROVISIONAL_DRIFT_PERCENT}", "floor": "${DEFAULT_PROVISIONAL_DRIFT_FLOOR}"}\``,
    doc:
      `at each export switch that supersedes stream charges, an account-period whose stream total differs from the export by more than ` +
      `\`percent\` of the export (and more than \`floor\`) is notified once (kind \`provisional-drift\`; \`${ENV.provisionalDriftPercent}\`, ` +
      `\`${ENV.provisionalDriftFloor}\`); every drift is recorded and measured, see docs/ledger.md`,
  }),
  exportCsvSubchunkRows: rule<number>({
    parser: wholeNumber(100, 1_000_000, 'rows'),
    default: DEFAULT_EXPORT_CSV_SUBCHUNK_ROWS,
    doc: `CSV rows committed together (\`${ENV.exportCsvSubchunkRows}\`): a crash re-reads at most this many`,
  }),
  exportParquetRowsPerTask: rule<number>({
    parser: wholeNumber(1_000, 10_000_000, 'rows'),
    default: DEFAULT_EXPORT_PARQUET_ROWS_PER_TASK,
    doc: `target rows of one Parquet task (whole row groups; \`${ENV.exportParquetRowsPerTask}\`); a task must finish within \`exportChunkTimeoutSeconds\``,
  }),
  exportPlannerTimeoutSeconds: rule<number>({
    parser: wholeNumber(10, 900, 'seconds'),
    default: 120,
    doc: 'export planner timeout (it reads the manifest and the footer of every Parquet file)',
  }),
  exportChunkTimeoutSeconds: rule<number>({
    parser: wholeNumber(60, 900, 'seconds'),
    default: 300,
    doc: 'export chunk worker timeout; its queue’s visibility timeout is 6 × this',
  }),
  exportChunkMemoryMb: rule<number>({
    parser: wholeNumber(512, 10240, 'MB'),
    default: 1024,
    doc: 'export chunk worker memory (one task per invocation; the default sizes peak below 512 MB)',
  }),
  exportChunkMaxReceiveCount: rule<number>({
    parser: wholeNumber(3, 1000, 'receives'),
    default: 20,
    doc:
      'receives of a chunk task before it is dead-lettered. A CSV file too large for one invocation continues ' +
      'in the next receive, so this also bounds the size of one CSV file',
  }),
  totalShards: rule<number>({
    parser: wholeNumber(1, MAX_TOTAL_SHARDS, 'shards'),
    default: DEFAULT_TOTAL_SHARDS,
    doc:
      `total items per account and month the cost consumer spreads its writes over (\`${ENV.totalShards}\`); ` +
      'may be changed on a live table (readers sum every shard), see docs/ledger.md',
  }),
  lateChargePolicy: rule<LateChargePolicy>({
    parser: oneOf<LateChargePolicy>(LATE_CHARGE_POLICIES, (s) => s.toLowerCase()),
    default: DEFAULT_LATE_CHARGE_POLICY,
    doc:
      `what a charge for a closed billing period does (\`${ENV.lateChargePolicy}\`): \`roll-forward\` books it in ` +
      'the next open period as a correction, `reject` sends it to the DLQ (`period-closed`); see docs/ledger.md',
  }),
  autoCloseAfterDays: rule<number | undefined>({
    parser: wholeNumber(1, 90, 'days'),
    default: undefined,
    defaultDoc: 'unset (off)',
    doc:
      'a daily function closes every billing period (tenant, account, month) this many days after the month ' +
      'ended (UTC), unless it was ever closed before; see docs/operations.md "Billing periods" for AWS invoice timing',
  }),
  reconciliation: rule<boolean>({
    parser: jsonValue('`true` or `false`', (value) => {
      if (typeof value !== 'boolean') throw new Error('reconciliation: must be true or false');
      return value;
    }),
    default: true,
    doc: "a nightly function compares the ledger with the provider's own totals (Cost Explorer) and records the result; see docs/reconciliation.md",
  }),
  reconciliationTimeUtc: rule<string>({
    parser: matching(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time HH:MM (UTC)'),
    default: DEFAULT_RECONCILIATION_TIME_UTC,
    doc: 'when the nightly reconciliation runs (EventBridge Scheduler, UTC)',
  }),
  reconciliationTolerancePercent: rule<string>({
    parser: checkedString('an exact decimal ≥ 0 (percent)', checkThreshold),
    default: DEFAULT_RECONCILIATION_TOLERANCE_PERCENT,
    doc: `a ledger total within this percentage of the provider's figure is \`ok\`; exactly the tolerance is ok (\`${RECONCILIATION_ENV.tolerancePercent}\`)`,
  }),
  reconciliationFloor: rule<string>({
    parser: checkedString('an exact decimal ≥ 0', checkThreshold),
    default: DEFAULT_RECONCILIATION_FLOOR,
    doc: `a difference up to this amount (billing currency) is \`ok\` whatever the percentage: tiny totals never page (\`${RECONCILIATION_ENV.floor}\`)`,
  }),
  reconciliationLookbackDays: rule<number>({
    parser: wholeNumber(1, 366, 'days'),
    default: DEFAULT_RECONCILIATION_LOOKBACK_DAYS,
    doc: `closed account-periods are reconciled until this many days after their last close; open ones always (\`${RECONCILIATION_ENV.lookbackDays}\`)`,
  }),
  reconciliationPayerTenant: rule<string | undefined>({
    parser: matching(SLUG_PATTERN, 'a tenant slug'),
    default: undefined,
    defaultDoc: 'unset',
    doc: `the tenant that owns every linked account of this deployment's payer: its accounts missing from the ledger are reported (\`${RECONCILIATION_ENV.payerTenant}\`); unset, provider accounts are matched to tenants by the ledger`,
  }),
  reconciliationProvider: rule<ReconciliationProvider>({
    parser: oneOf<ReconciliationProvider>(RECONCILIATION_PROVIDERS),
    default: DEFAULT_RECONCILIATION_PROVIDER,
    doc:
      `where the provider's figures come from (\`${RECONCILIATION_ENV.provider}\`): \`cost-explorer\` (per linked account, ` +
      'estimated until AWS finalizes the month) or `invoicing` (the invoices less credit memos of each billing account in ' +
      '`reconciliationInvoiceAccounts`, final once the month has ended and every account is invoiced); see docs/reconciliation.md',
  }),
  reconciliationInvoiceAccounts: rule<readonly string[]>({
    parser: listOf('12-digit billing account IDs', (item) =>
      ACCOUNT_RE.test(item) ? undefined : 'is not a 12-digit AWS account ID',
    ),
    default: [],
    defaultDoc: 'none',
    doc: `the billing accounts whose invoices the \`invoicing\` provider sums (\`${RECONCILIATION_ENV.invoiceAccounts}\`); required with it`,
  }),
  reconciliationRoleArn: rule<string | undefined>({
    parser: matching(ROLE_ARN_RE, 'an IAM role ARN (arn:aws:iam::123456789012:role/name)'),
    default: undefined,
    defaultDoc: 'unset (the function asks with its own credentials)',
    doc:
      `a role in the payer (or management) account that the reconciliation function assumes (STS, with ` +
      '`reconciliationExternalId`) to ask Cost Explorer or the Invoicing API, for a deployment outside the payer ' +
      `account (\`${RECONCILIATION_ENV.roleArn}\`); the trust policy to create there: docs/reconciliation.md`,
  }),
  reconciliationExternalId: rule<string | undefined>({
    parser: matching(
      EXTERNAL_ID_RE,
      'an STS ExternalId: 2-1224 characters of letters, digits and +=,.@:/-',
    ),
    default: undefined,
    defaultDoc: 'unset',
    doc: `the ExternalId the trust policy of \`reconciliationRoleArn\` requires (\`${RECONCILIATION_ENV.externalId}\`); required with it, e.g. a random UUID`,
  }),
  pushEndpoint: rule<PushEndpointConfig | undefined>({
    parser: jsonValue(
      'JSON object `{"pubsub"?: {"audience", "serviceAccounts": {email: tenant}}, "azureTenants"?: [tenant], "azureEntra"?: {tenant: {"entraTenantId", "audience"}}, "ingest"?: true, "iamCallers"?: [{"principal": role ARN, "tenant", "source"}], "ingestPerMinute"?, "maxBodyBytes"?, "ratePerSecond"?, "burst"?, "refusedAuthAlarmPerFiveMinutes"?}`',
      parsePushEndpoint,
    ),
    default: undefined,
    defaultDoc: 'unset (no endpoint)',
    doc:
      "an HTTP API that takes Google Pub/Sub pushes (OIDC token of a tenant's service account), Azure action-group " +
      'webhooks (per-tenant token) and the usage ingest API (API key + Idempotency-Key; `iamCallers`: SigV4 of a bound ' +
      'IAM role on `/v1/iam/events`) and publishes them to the topics; see docs/push-endpoint.md',
  }),
} as const satisfies Record<string, ConfigRule<unknown>>;

export type ConfigKey = keyof typeof CONFIG_RULES;

type ValueOfRule<R> = R extends ConfigRule<infer T> ? T : never;

/** The values of every rule, typed from the table. */
export type ConfigValues = {
  readonly [K in ConfigKey]: ValueOfRule<(typeof CONFIG_RULES)[K]>;
};

/** A rule over several keys: `problem` returns the message when the combination is refused. */
export interface CrossFieldRule {
  readonly keys: readonly ConfigKey[];
  problem(values: ConfigValues): string | undefined;
}

export const CROSS_FIELD_RULES: readonly CrossFieldRule[] = [
  {
    keys: ['archiveInfrequentAccessAfterDays', 'archiveGlacierInstantAfterDays'],
    problem: (c) =>
      c.archiveGlacierInstantAfterDays < c.archiveInfrequentAccessAfterDays + 30
        ? `archiveGlacierInstantAfterDays: ${c.archiveGlacierInstantAfterDays} is less than 30 days after ` +
          `archiveInfrequentAccessAfterDays (${c.archiveInfrequentAccessAfterDays}); S3 keeps an object in Standard-IA ` +
          `at least 30 days before the next transition, so set it to ${c.archiveInfrequentAccessAfterDays + 30} or more`
        : undefined,
  },
  {
    keys: ['archiveRetentionDays', 'archiveGlacierInstantAfterDays'],
    problem: (c) =>
      c.archiveRetentionDays <= c.archiveGlacierInstantAfterDays
        ? `archiveRetentionDays: ${c.archiveRetentionDays} days does not outlast the last transition ` +
          `(archiveGlacierInstantAfterDays ${c.archiveGlacierInstantAfterDays}); S3 refuses an expiration before a ` +
          'transition, so raise archiveRetentionDays or lower the transitions'
        : undefined,
  },
  {
    keys: ['exportVersionRetentionDays', 'archiveRetentionDays'],
    problem: (c) =>
      c.exportVersionRetentionDays < c.archiveRetentionDays
        ? `exportVersionRetentionDays: ${c.exportVersionRetentionDays} days is shorter than archiveRetentionDays ` +
          `(${c.archiveRetentionDays}); a replaced export file would expire while archived evidence still points to it. ` +
          `Leave it unset (it follows archiveRetentionDays) or set it to ${c.archiveRetentionDays} or more`
        : undefined,
  },
  {
    keys: ['reconciliationProvider', 'reconciliationInvoiceAccounts'],
    problem: (c) =>
      c.reconciliationProvider === 'invoicing' && c.reconciliationInvoiceAccounts.length === 0
        ? 'reconciliationProvider: "invoicing" sums the invoices of the billing accounts in reconciliationInvoiceAccounts; ' +
          'list them (e.g. reconciliationInvoiceAccounts=123456789012) or use "cost-explorer"'
        : undefined,
  },
  {
    keys: ['reconciliationRoleArn', 'reconciliationExternalId'],
    problem: (c) =>
      c.reconciliationRoleArn !== undefined && c.reconciliationExternalId === undefined
        ? 'reconciliationRoleArn: the function assumes the payer role with an ExternalId its trust policy requires; ' +
          'set reconciliationExternalId to that value (e.g. a random UUID, the same in the trust policy)'
        : c.reconciliationRoleArn === undefined && c.reconciliationExternalId !== undefined
          ? 'reconciliationExternalId: is used only to assume reconciliationRoleArn; set the role ARN or remove it'
          : undefined,
  },
  {
    keys: ['stage'],
    problem: (c) => {
      const reserved = reservedWordsIn(c.stage);
      return reserved.length === 0
        ? undefined
        : `stage: "${c.stage}" contains ${reserved.map((word) => `"${word}"`).join(', ')}, which the app's resource ` +
            `names use right after the stage (${RESERVED_STAGE_WORDS.join(', ')}); the key and queue policies ` +
            'tell stages apart by these words, so a stage may not contain them. Pick another name, e.g. "prod-eu"';
    },
  },
  {
    keys: ['tenants', 'trustedCostTopic', 'costEventsPublishers'],
    problem: (c) =>
      c.tenants.length > 0 && !c.trustedCostTopic && c.costEventsPublishers.length > 0
        ? 'costEventsPublishers: with tenants configured the shared cost-events topic exists only with ' +
          'trustedCostTopic=true; move these publishers into tenants[].publishers, or set trustedCostTopic=true ' +
          'if they are trusted internal producers that may book for any tenant'
        : undefined,
  },
  {
    keys: ['pushEndpoint', 'tenants', 'trustedCostTopic'],
    problem: (c) =>
      (c.pushEndpoint?.ingest || c.pushEndpoint?.pubsub || c.pushEndpoint?.iamCallers) &&
      c.tenants.length > 0 &&
      !c.trustedCostTopic
        ? 'pushEndpoint: the ingest API (API keys or iamCallers) and Pub/Sub pushes publish cost events to the shared ' +
          'cost-events topic (tenant from the credential), which exists with tenants only with trustedCostTopic=true; set ' +
          'trustedCostTopic=true, or keep only azureTenants'
        : undefined,
  },
  {
    keys: ['pushEndpoint', 'tenants'],
    problem: (c) => {
      if (c.tenants.length === 0) return undefined;
      const callers = c.pushEndpoint?.iamCallers ?? [];
      for (const [index, caller] of callers.entries()) {
        const tenant = c.tenants.find((t) => t.id === caller.tenant);
        if (tenant === undefined)
          return (
            `pushEndpoint.iamCallers[${index}].tenant: "${caller.tenant}" is not one of tenants[].id ` +
            `(${c.tenants.map((t) => t.id).join(', ')}); bind the role to a configured tenant or add the tenant`
          );
        if (tenant.sources !== undefined && !tenant.sources.includes(caller.source))
          return (
            `pushEndpoint.iamCallers[${index}].source: "${caller.source}" is not one of tenant ${tenant.id}'s sources ` +
            `(${tenant.sources.join(', ')}); the role would book a source the tenant's own publishers may not claim, so use one of them or add it`
          );
      }
      return undefined;
    },
  },
  {
    keys: ['trustedCostTopic', 'tenants'],
    problem: (c) =>
      c.trustedCostTopic && c.tenants.length === 0
        ? 'trustedCostTopic: only applies with tenants (without them the shared topic always exists); remove it or configure tenants'
        : undefined,
  },
  {
    keys: ['exportSources', 'tenants'],
    problem: (c) => {
      if (c.tenants.length === 0) return undefined;
      const ids = new Set(c.tenants.map((tenant) => tenant.id));
      const index = c.exportSources.findIndex((source) => !ids.has(source.tenant));
      return index === -1
        ? undefined
        : `exportSources[${index}].tenant: "${c.exportSources[index].tenant}" is not one of tenants[].id ` +
            `(${[...ids].join(', ')}); an export prefix binds a tenant the same way a tenant topic does, so use the same id or add the tenant`;
    },
  },
  {
    keys: ['dataExports', 'exportSources'],
    problem: (c) => {
      const prefixes = new Set(c.exportSources.map((source) => source.prefix));
      const index = c.dataExports.findIndex((entry) => !prefixes.has(entry.prefix));
      return index === -1
        ? undefined
        : `dataExports[${index}].prefix: "${c.dataExports[index].prefix}" is not one of exportSources[].prefix ` +
            `(${[...prefixes].map((p) => `"${p}"`).join(', ') || 'none configured'}); a Data Export delivers under a tenant's prefix, ` +
            'so add an exportSources entry binding it to its tenant';
    },
  },
  {
    keys: ['azureExports', 'exportSources'],
    problem: (c) => azureExportsProblem(c.azureExports, c.exportSources),
  },
  {
    keys: ['azureExports', 'tenants'],
    problem: (c) =>
      unknownTenantProblem(
        c.azureExports,
        c.tenants.map((tenant) => tenant.id),
        'azureExports',
      ),
  },
  {
    keys: ['gcpBillingExports', 'exportSources'],
    problem: (c) => gcpBillingExportsProblem(c.gcpBillingExports, c.exportSources),
  },
  {
    keys: ['gcpBillingExports', 'tenants'],
    problem: (c) =>
      unknownTenantProblem(
        c.gcpBillingExports,
        c.tenants.map((tenant) => tenant.id),
        'gcpBillingExports',
      ),
  },
  {
    keys: ['dataExports', 'region'],
    problem: (c) =>
      c.dataExports.length > 0 && c.region === undefined
        ? 'dataExports: set region (the stage’s region). Data Exports lives in us-east-1 and delivers across ' +
          'regions, so the stack that creates the exports must know where the export bucket is'
        : undefined,
  },
  {
    keys: ['exportBucketName', 'exportSources'],
    problem: (c) =>
      c.exportBucketName !== undefined && c.exportSources.length === 0
        ? `exportBucketName: an existing bucket needs exportSources. Without them the stage would claim every ` +
          `manifest of "${c.exportBucketName}" with one whole-bucket notification rule, which S3 refuses next to any ` +
          'other stage’s or application’s rule on that bucket; add exportSources (the key prefixes of your exports), ' +
          'or remove exportBucketName to let the stage create its own bucket'
        : undefined,
  },
  {
    keys: ['exportBucketKeyArn', 'exportBucketName'],
    problem: (c) =>
      c.exportBucketKeyArn !== undefined && c.exportBucketName === undefined
        ? 'exportBucketKeyArn: only applies to an existing bucket; set exportBucketName too, or remove exportBucketKeyArn (the created bucket has its own key)'
        : undefined,
  },
  {
    keys: ['batchSize', 'maxBatchingWindowSeconds'],
    problem: (c) =>
      c.batchSize > 10 && c.maxBatchingWindowSeconds < 1
        ? `batchSize: ${c.batchSize} > 10 requires maxBatchingWindowSeconds ≥ 1 (Lambda rule for SQS)`
        : undefined,
  },
  {
    keys: ['batchSize', 'costStreamKind'],
    problem: (c) =>
      c.batchSize > 10 && c.costStreamKind === 'fifo'
        ? `batchSize: FIFO queues accept at most 10 records per batch, got ${c.batchSize}; lower batchSize or set costStreamKind=standard`
        : undefined,
  },
];
