/**
 * Deployment configuration: one typed object, built from CDK context and validated against the
 * rule table in lib/config-rules.ts.
 *
 * Precedence (lowest → highest):
 *   1. the rule table's defaults (documented in docs/infrastructure.md),
 *   2. `stages.<stage>` object in cdk.json context (per-stage overrides),
 *   3. flat context keys (`cdk.json` "context" top level, or `-c key=value` on the CLI).
 *
 * Every problem — bad values, unknown keys, refused combinations — is collected and reported at
 * once in a ConfigError whose message names the key, the bad value and what is accepted.
 */
import { show } from './config-parsers';
import {
  CONFIG_RULES,
  CROSS_FIELD_RULES,
  ConfigKey,
  ConfigRule,
  ConfigValues,
} from './config-rules';

import type { ExportSourceConfig } from '../contract/export-sources';

export { LOG_RETENTION_DAYS } from './config-rules';
export type { ConfigKey, LogLevel, StreamKind } from './config-rules';

export type BillingDedupConfig = ConfigValues & {
  /** Derived: tables get deletion protection in every stage except `dev`. */
  readonly deletionProtection: boolean;
};

/** Keys a user can set, in the order of the docs table. */
export const CONFIG_KEYS = Object.keys(CONFIG_RULES) as readonly ConfigKey[];

/** The context key holding per-stage overrides. */
export const STAGES_KEY = 'stages';

type RuleOf<K extends ConfigKey> = ConfigRule<ConfigValues[K]>;
const ruleOf = <K extends ConfigKey>(key: K): RuleOf<K> => CONFIG_RULES[key] as RuleOf<K>;

/** Constant defaults (`visibilityTimeoutSeconds` and `exportVersionRetentionDays` have none: they are derived from other values). */
export const DEFAULTS = Object.fromEntries(
  CONFIG_KEYS.filter((key) => typeof ruleOf(key).default !== 'function').map((key) => [
    key,
    ruleOf(key).default,
  ]),
) as Omit<ConfigValues, 'visibilityTimeoutSeconds' | 'exportVersionRetentionDays'>;

/**
 * Which context keys are ours: plain identifiers (`maxReceiveCount`). CDK and its tools use keys
 * with `@`, `:`, `-`, `.` or `/` (`@aws-cdk/core:…` feature flags, `aws:cdk:…`, lookups such as
 * `availability-zones:account=…`, `acknowledged-issue-numbers`), which are never ours.
 */
export function isOurContextKey(key: string): boolean {
  return /^[a-z][A-Za-z0-9]*$/.test(key);
}

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

/**
 * Anything that can answer context lookups (a cdk.App's node, or a plain map in tests). With
 * `keys`, unknown keys of ours are reported; without it they cannot be seen.
 */
export type ContextSource = ((key: string) => unknown) & {
  readonly keys?: () => readonly string[];
};

/** Context source over a plain object (tests, tools). */
export function contextFrom(values: Record<string, unknown>): ContextSource {
  return Object.assign((key: string) => values[key], { keys: () => Object.keys(values) });
}

/** Context source over a construct tree's context (the App). */
export function contextOfNode(node: {
  tryGetContext(key: string): unknown;
  getAllContext(): Record<string, unknown>;
}): ContextSource {
  return Object.assign((key: string) => node.tryGetContext(key), {
    keys: () => Object.keys(node.getAllContext()),
  });
}

function validKeysText(keys: readonly string[]): string {
  return `valid keys: ${keys.join(', ')}`;
}

/** Edit distance, for "did you mean …" on a mistyped key. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

function unknownKeyProblem(where: string, key: string, valid: readonly string[]): string {
  const near = valid
    .map((candidate) => ({ candidate, d: distance(key.toLowerCase(), candidate.toLowerCase()) }))
    .filter(({ d }) => d <= 3)
    .sort((x, y) => x.d - y.d)[0];
  const hint = near ? ` (did you mean ${near.candidate}?)` : '';
  return `${where}: unknown key${hint}; ${validKeysText(valid)}`;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keys settable inside `stages.<stage>` (the stage itself is chosen outside). */
const STAGE_ENTRY_KEYS = CONFIG_KEYS.filter((key) => key !== 'stage');

function checkStages(stages: unknown): string[] {
  if (stages === undefined) return [];
  if (!isPlainObject(stages))
    return [`${STAGES_KEY}: expected an object keyed by stage name, got ${show(stages)}`];
  return Object.entries(stages).flatMap(([name, entry]) => {
    if (!isPlainObject(entry))
      return [`${STAGES_KEY}.${name}: expected an object of config keys, got ${show(entry)}`];
    return Object.keys(entry)
      .filter((k) => !(STAGE_ENTRY_KEYS as readonly string[]).includes(k))
      .map((k) => unknownKeyProblem(`${STAGES_KEY}.${name}.${k}`, k, STAGE_ENTRY_KEYS));
  });
}

function checkFlatKeys(context: ContextSource): string[] {
  const known = new Set<string>([...CONFIG_KEYS, STAGES_KEY]);
  return (context.keys?.() ?? [])
    .filter((k) => isOurContextKey(k) && !known.has(k))
    .map((k) => unknownKeyProblem(k, k, [...CONFIG_KEYS, STAGES_KEY]));
}

const isSet = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/**
 * Collect raw values from a context source: flat keys override `stages.<stage>` entries.
 * Unknown keys of ours — flat or inside any `stages.<name>` — are problems.
 */
export function readRawConfig(context: ContextSource): {
  raw: Partial<Record<ConfigKey, unknown>>;
  problems: string[];
} {
  const stages = context(STAGES_KEY);
  const problems = [...checkFlatKeys(context), ...checkStages(stages)];
  const stageValue = context('stage') ?? DEFAULTS.stage;
  const perStage =
    isPlainObject(stages) && typeof stageValue === 'string' && isPlainObject(stages[stageValue])
      ? stages[stageValue]
      : {};
  const raw: Partial<Record<ConfigKey, unknown>> = {};
  for (const key of CONFIG_KEYS) {
    const flat = context(key);
    const v = flat !== undefined ? flat : key === 'stage' ? undefined : perStage[key];
    if (v !== undefined) raw[key] = v;
  }
  return { raw, problems };
}

/** Build and validate the configuration. Throws ConfigError listing every problem. */
export function resolveConfig(context: ContextSource): BillingDedupConfig {
  const { raw, problems } = readRawConfig(context);
  const values: Record<string, unknown> = {};
  const derived: ConfigKey[] = [];
  for (const key of CONFIG_KEYS) {
    const rule = ruleOf(key);
    if (isSet(raw[key])) {
      const parsed = rule.parser.parse(key, raw[key]);
      if (parsed.ok) {
        values[key] = parsed.value;
        continue;
      }
      problems.push(...parsed.problems);
    }
    if (typeof rule.default === 'function') derived.push(key);
    else values[key] = rule.default;
  }
  for (const key of derived) {
    values[key] = (ruleOf(key).default as (v: Readonly<Record<string, unknown>>) => unknown)(
      values,
    );
  }
  const config = values as ConfigValues;
  for (const crossField of CROSS_FIELD_RULES) {
    const problem = crossField.problem(config);
    if (problem) problems.push(problem);
  }
  problems.push(...sharedBucketProblems(config, context));
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...config, deletionProtection: config.stage !== 'dev' };
}

/**
 * Two stages on one existing bucket (`exportBucketName`) each write S3 notification rules for their
 * prefixes, and S3 refuses rules whose prefixes overlap: the second stage's deploy would fail. The other
 * stages of `stages.<name>` that name the same bucket are compared here, at synth. (A stage configured
 * only by `-c` flags cannot be seen from another one: docs/exports.md says so.)
 */
function sharedBucketProblems(config: ConfigValues, context: ContextSource): string[] {
  const stages = context(STAGES_KEY);
  if (config.exportBucketName === undefined || !isPlainObject(stages)) return [];
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(stages)) {
    if (name === config.stage || !isPlainObject(entry)) continue;
    if (entry.exportBucketName !== config.exportBucketName) continue;
    const other = otherStageSources(entry, context);
    if (!other) continue;
    for (const mine of config.exportSources)
      for (const theirs of other)
        if (mine.prefix.startsWith(theirs.prefix) || theirs.prefix.startsWith(mine.prefix))
          problems.push(
            `exportSources: prefix "${mine.prefix}" overlaps "${theirs.prefix}" of stage "${name}" on the same bucket ` +
              `"${config.exportBucketName}"; S3 refuses overlapping notification rules, so the second stage would fail ` +
              'to deploy. Give each stage its own prefixes (e.g. "<stage>/<tenant>/") or its own bucket',
          );
  }
  return problems;
}

/** The export sources another stage entry resolves to (its own, else the flat key); undefined if invalid. */
function otherStageSources(
  entry: Record<string, unknown>,
  context: ContextSource,
): readonly ExportSourceConfig[] | undefined {
  const raw = entry.exportSources ?? context('exportSources');
  if (raw === undefined) return [];
  const parsed = CONFIG_RULES.exportSources.parser.parse('exportSources', raw);
  return parsed.ok ? parsed.value : undefined;
}
