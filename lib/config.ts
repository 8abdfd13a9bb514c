/**
 * Deployment configuration: one typed object, built from CDK context and validated.
 *
 * Precedence (lowest → highest):
 *   1. DEFAULTS below (documented in docs/infrastructure.md),
 *   2. `stages.<stage>` object in cdk.json context (per-stage overrides),
 *   3. flat context keys (`cdk.json` "context" top level, or `-c key=value` on the CLI).
 *
 * Every validation problem is collected and reported at once in a ConfigError whose message
 * names the key, the bad value and what is accepted.
 */

export type StreamKind = 'fifo' | 'standard';
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface BillingDedupConfig {
  /** Deployment stage; part of every resource and stack name. */
  readonly stage: string;
  /** Target account; undefined → environment-agnostic stacks. */
  readonly account?: string;
  /** Target region; undefined → environment-agnostic stacks. */
  readonly region?: string;
  /** Queue/topic kind of the cost-events stream. */
  readonly costStreamKind: StreamKind;
  /** Lifetime of a dedup claim (DEDUP_TTL_SECONDS = days × 86400). */
  readonly dedupTtlDays: number;
  /** Message retention of the source queues. */
  readonly queueRetentionDays: number;
  /** Message retention of the dead-letter queues. */
  readonly dlqRetentionDays: number;
  /** Lambda timeout of the consumers. */
  readonly functionTimeoutSeconds: number;
  /** Lambda memory of the consumers. */
  readonly functionMemoryMb: number;
  /** Source queue visibility timeout; defaults to 6 × timeout + batching window. */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before SQS moves a message to the DLQ. */
  readonly maxReceiveCount: number;
  /** Event source mapping batch size. */
  readonly batchSize: number;
  /** Event source mapping batching window (standard queues only; FIFO has none). */
  readonly maxBatchingWindowSeconds: number;
  /** Event source mapping maximum concurrency (concurrent invocations per queue). */
  readonly eventSourceMaxConcurrency: number;
  /** Records processed concurrently inside one invocation (MAX_CONCURRENCY). */
  readonly inBatchConcurrency: number;
  /** Powertools log level. */
  readonly logLevel: LogLevel;
  /** CloudWatch Logs retention of the function log groups. */
  readonly logRetentionDays: number;
  /** Threshold of the "oldest message age" alarm on each source queue. */
  readonly oldestMessageAgeAlarmSeconds: number;
  /** Account IDs / IAM role ARNs allowed to publish to the cost-events topic. */
  readonly costEventsPublishers: readonly string[];
  /** Account IDs / IAM role ARNs allowed to publish to the budget-alerts topic. */
  readonly budgetAlertsPublishers: readonly string[];
  /** E-mail addresses subscribed to the notifications topic. */
  readonly notificationEmails: readonly string[];
  /** E-mail addresses subscribed to the ops (alarm) topic. */
  readonly opsEmails: readonly string[];
  /** Derived: tables get deletion protection in every stage except `dev`. */
  readonly deletionProtection: boolean;
}

/** Keys a user can set (everything except derived values). */
export const CONFIG_KEYS = [
  'stage',
  'account',
  'region',
  'costStreamKind',
  'dedupTtlDays',
  'queueRetentionDays',
  'dlqRetentionDays',
  'functionTimeoutSeconds',
  'functionMemoryMb',
  'visibilityTimeoutSeconds',
  'maxReceiveCount',
  'batchSize',
  'maxBatchingWindowSeconds',
  'eventSourceMaxConcurrency',
  'inBatchConcurrency',
  'logLevel',
  'logRetentionDays',
  'oldestMessageAgeAlarmSeconds',
  'costEventsPublishers',
  'budgetAlertsPublishers',
  'notificationEmails',
  'opsEmails',
] as const;

export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Defaults; `visibilityTimeoutSeconds` has none: it is derived (see resolveConfig). */
export const DEFAULTS = {
  stage: 'dev',
  costStreamKind: 'fifo' as StreamKind,
  dedupTtlDays: 35,
  queueRetentionDays: 14,
  dlqRetentionDays: 14,
  functionTimeoutSeconds: 30,
  functionMemoryMb: 512,
  maxReceiveCount: 5,
  batchSize: 10,
  maxBatchingWindowSeconds: 5,
  eventSourceMaxConcurrency: 10,
  inBatchConcurrency: 8,
  logLevel: 'INFO' as LogLevel,
  logRetentionDays: 30,
  oldestMessageAgeAlarmSeconds: 900,
  costEventsPublishers: [] as string[],
  budgetAlertsPublishers: [] as string[],
  notificationEmails: [] as string[],
  opsEmails: [] as string[],
};

/** CloudWatch Logs accepts only these retention values. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `Invalid billing-dedup configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        '\nSet values in cdk.json "context" (or "stages.<stage>") or with `-c key=value`; see docs/infrastructure.md.',
    );
    this.name = 'ConfigError';
  }
}

/** Anything that can answer context lookups (a cdk.App's node, or a plain map in tests). */
export type ContextSource = (key: string) => unknown;

const STAGE_RE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const STAGE_MAX = 16;
const ACCOUNT_RE = /^\d{12}$/;
const REGION_RE = /^[a-z]{2}(?:-[a-z]+)+-\d$/;
const ROLE_ARN_RE = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Human-readable form of a raw value for error messages. */
function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
}

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly raw: Partial<Record<ConfigKey, unknown>>) {}

  has(key: ConfigKey): boolean {
    return this.raw[key] !== undefined && this.raw[key] !== null && this.raw[key] !== '';
  }

  int(key: ConfigKey, def: number, min: number, max: number, unit: string): number {
    if (!this.has(key)) return def;
    const v = this.raw[key];
    const n =
      typeof v === 'number'
        ? v
        : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)
          ? Number(v)
          : NaN;
    if (!Number.isInteger(n)) {
      this.problems.push(`${key}: expected a whole number of ${unit}, got ${show(v)}`);
      return def;
    }
    if (n < min || n > max) {
      this.problems.push(`${key}: must be between ${min} and ${max} ${unit}, got ${n}`);
      return def;
    }
    return n;
  }

  oneOf<T extends string>(
    key: ConfigKey,
    def: T,
    allowed: readonly T[],
    normalize: (s: string) => string = (s) => s,
  ): T {
    if (!this.has(key)) return def;
    const v = this.raw[key];
    const s = typeof v === 'string' ? normalize(v.trim()) : undefined;
    if (s === undefined || !(allowed as readonly string[]).includes(s)) {
      this.problems.push(
        `${key}: must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${show(v)}`,
      );
      return def;
    }
    return s as T;
  }

  /** A list given as a JSON array, a JSON array string, or a comma-separated string. */
  list(key: ConfigKey, check: (item: string) => string | undefined): string[] {
    if (!this.has(key)) return [];
    let v = this.raw[key];
    if (typeof v === 'string') {
      const t = v.trim();
      if (t.startsWith('[')) {
        try {
          v = JSON.parse(t);
        } catch {
          this.problems.push(
            `${key}: not valid JSON: ${show(v)} (use a JSON array or a comma-separated list)`,
          );
          return [];
        }
      } else {
        v = t
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s.length > 0);
      }
    }
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      this.problems.push(
        `${key}: expected a list of strings (JSON array or comma-separated), got ${show(v)}`,
      );
      return [];
    }
    const items = (v as string[]).map((s) => s.trim());
    for (const item of items) {
      const why = check(item);
      if (why) this.problems.push(`${key}: ${show(item)} ${why}`);
    }
    const unique = [...new Set(items)];
    return unique;
  }

  optionalMatch(key: ConfigKey, re: RegExp, what: string): string | undefined {
    if (!this.has(key)) return undefined;
    const v = this.raw[key];
    const s = typeof v === 'number' ? String(v) : v;
    if (typeof s !== 'string' || !re.test(s.trim())) {
      this.problems.push(`${key}: must be ${what}, got ${show(v)}`);
      return undefined;
    }
    return s.trim();
  }
}

function checkPrincipal(item: string): string | undefined {
  if (ACCOUNT_RE.test(item) || ROLE_ARN_RE.test(item)) return undefined;
  return 'is neither a 12-digit account ID nor an IAM role ARN (arn:aws:iam::123456789012:role/name)';
}

function checkEmail(item: string): string | undefined {
  return EMAIL_RE.test(item) ? undefined : 'is not an e-mail address';
}

/**
 * Collect raw values from a context source: flat keys override `stages.<stage>` entries.
 * Unknown keys inside `stages.<stage>` are reported (flat context also holds CDK's own keys,
 * so unknown flat keys cannot be told apart and are ignored).
 */
export function readRawConfig(context: ContextSource): {
  raw: Partial<Record<ConfigKey, unknown>>;
  problems: string[];
} {
  const problems: string[] = [];
  const flat: Partial<Record<ConfigKey, unknown>> = {};
  for (const key of CONFIG_KEYS) {
    const v = context(key);
    if (v !== undefined) flat[key] = v;
  }
  const stageValue = flat.stage ?? DEFAULTS.stage;
  const stages = context('stages');
  let perStage: Record<string, unknown> = {};
  if (stages !== undefined) {
    if (typeof stages !== 'object' || stages === null || Array.isArray(stages)) {
      problems.push(`stages: expected an object keyed by stage name, got ${show(stages)}`);
    } else if (typeof stageValue === 'string') {
      const entry = (stages as Record<string, unknown>)[stageValue];
      if (entry !== undefined) {
        if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
          problems.push(
            `stages.${stageValue}: expected an object of config keys, got ${show(entry)}`,
          );
        } else {
          perStage = entry as Record<string, unknown>;
          for (const k of Object.keys(perStage)) {
            if (k === 'stage' || !(CONFIG_KEYS as readonly string[]).includes(k)) {
              problems.push(
                `stages.${stageValue}.${k}: unknown key (allowed: ${CONFIG_KEYS.filter((c) => c !== 'stage').join(', ')})`,
              );
            }
          }
        }
      }
    }
  }
  const raw: Partial<Record<ConfigKey, unknown>> = {};
  for (const key of CONFIG_KEYS) {
    const v = flat[key] !== undefined ? flat[key] : key === 'stage' ? undefined : perStage[key];
    if (v !== undefined) raw[key] = v;
  }
  return { raw, problems };
}

/** Build and validate the configuration. Throws ConfigError listing every problem. */
export function resolveConfig(context: ContextSource): BillingDedupConfig {
  const { raw, problems: structural } = readRawConfig(context);
  const r = new Reader(raw);
  r.problems.push(...structural);

  let stage: string = DEFAULTS.stage;
  if (r.has('stage')) {
    const v = raw.stage;
    if (typeof v !== 'string' || !STAGE_RE.test(v) || v.length > STAGE_MAX) {
      r.problems.push(
        `stage: must be 1-${STAGE_MAX} characters of lower-case letters, digits and single hyphens, ` +
          `starting with a letter (e.g. "dev", "prod", "eu-prod"), got ${show(v)}`,
      );
    } else {
      stage = v;
    }
  }

  const costStreamKind = r.oneOf<StreamKind>(
    'costStreamKind',
    DEFAULTS.costStreamKind,
    ['fifo', 'standard'],
    (s) => s.toLowerCase(),
  );
  const dedupTtlDays = r.int('dedupTtlDays', DEFAULTS.dedupTtlDays, 1, 3650, 'days');
  // SQS accepts retention from 60 s to 14 days; we work in whole days.
  const queueRetentionDays = r.int(
    'queueRetentionDays',
    DEFAULTS.queueRetentionDays,
    1,
    14,
    'days',
  );
  const dlqRetentionDays = r.int('dlqRetentionDays', DEFAULTS.dlqRetentionDays, 1, 14, 'days');
  const functionTimeoutSeconds = r.int(
    'functionTimeoutSeconds',
    DEFAULTS.functionTimeoutSeconds,
    3,
    900,
    'seconds',
  );
  const functionMemoryMb = r.int('functionMemoryMb', DEFAULTS.functionMemoryMb, 128, 10240, 'MB');
  const maxReceiveCount = r.int('maxReceiveCount', DEFAULTS.maxReceiveCount, 1, 1000, 'receives');
  const batchSize = r.int('batchSize', DEFAULTS.batchSize, 1, 10000, 'records');
  const maxBatchingWindowSeconds = r.int(
    'maxBatchingWindowSeconds',
    DEFAULTS.maxBatchingWindowSeconds,
    0,
    300,
    'seconds',
  );
  const eventSourceMaxConcurrency = r.int(
    'eventSourceMaxConcurrency',
    DEFAULTS.eventSourceMaxConcurrency,
    2,
    1000,
    'concurrent invocations',
  );
  const inBatchConcurrency = r.int(
    'inBatchConcurrency',
    DEFAULTS.inBatchConcurrency,
    1,
    256,
    'records',
  );
  const logLevel = r.oneOf<LogLevel>(
    'logLevel',
    DEFAULTS.logLevel,
    ['DEBUG', 'INFO', 'WARN', 'ERROR'],
    (s) => s.toUpperCase(),
  );
  let logRetentionDays = r.int('logRetentionDays', DEFAULTS.logRetentionDays, 1, 3653, 'days');
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(logRetentionDays)) {
    r.problems.push(
      `logRetentionDays: CloudWatch Logs accepts only ${LOG_RETENTION_DAYS.join(', ')}; got ${logRetentionDays}`,
    );
    logRetentionDays = DEFAULTS.logRetentionDays;
  }
  const oldestMessageAgeAlarmSeconds = r.int(
    'oldestMessageAgeAlarmSeconds',
    DEFAULTS.oldestMessageAgeAlarmSeconds,
    60,
    14 * 86400,
    'seconds',
  );

  // Batch sizes above 10 need a batching window (Lambda rule) and are impossible on FIFO queues.
  if (batchSize > 10 && maxBatchingWindowSeconds < 1) {
    r.problems.push(
      `batchSize: ${batchSize} > 10 requires maxBatchingWindowSeconds ≥ 1 (Lambda rule for SQS)`,
    );
  }
  if (batchSize > 10 && costStreamKind === 'fifo') {
    r.problems.push(
      `batchSize: FIFO queues accept at most 10 records per batch, got ${batchSize}; lower batchSize or set costStreamKind=standard`,
    );
  }

  // The visibility timeout default is derived so that changing the timeout never breaks the invariant.
  const derivedVisibility = 6 * functionTimeoutSeconds + maxBatchingWindowSeconds;
  const visibilityTimeoutSeconds = r.has('visibilityTimeoutSeconds')
    ? r.int('visibilityTimeoutSeconds', derivedVisibility, 0, 43200, 'seconds')
    : derivedVisibility;
  if (visibilityTimeoutSeconds > 43200) {
    r.problems.push(
      `functionTimeoutSeconds/maxBatchingWindowSeconds: the derived visibility timeout ${visibilityTimeoutSeconds}s exceeds SQS's 43200s maximum`,
    );
  }

  const account = r.optionalMatch('account', ACCOUNT_RE, 'a 12-digit AWS account ID');
  const region = r.optionalMatch('region', REGION_RE, 'an AWS region name such as "eu-west-1"');

  const costEventsPublishers = r.list('costEventsPublishers', checkPrincipal);
  const budgetAlertsPublishers = r.list('budgetAlertsPublishers', checkPrincipal);
  const notificationEmails = r.list('notificationEmails', checkEmail);
  const opsEmails = r.list('opsEmails', checkEmail);

  if (r.problems.length > 0) throw new ConfigError(r.problems);

  return {
    stage,
    account,
    region,
    costStreamKind,
    dedupTtlDays,
    queueRetentionDays,
    dlqRetentionDays,
    functionTimeoutSeconds,
    functionMemoryMb,
    visibilityTimeoutSeconds,
    maxReceiveCount,
    batchSize,
    maxBatchingWindowSeconds,
    eventSourceMaxConcurrency,
    inBatchConcurrency,
    logLevel,
    logRetentionDays,
    oldestMessageAgeAlarmSeconds,
    costEventsPublishers,
    budgetAlertsPublishers,
    notificationEmails,
    opsEmails,
    deletionProtection: stage !== 'dev',
  };
}

/** Context source over a plain object (tests, tools). */
export function contextFrom(values: Record<string, unknown>): ContextSource {
  return (key) => values[key];
}
