/**
 * The run report (schema in docs/local-run.md#the-report), the
 * verdict against the generator's ground truth, and the human-readable summary.
 */
import type { ArchiveReport } from './archive-check';
import Big from 'big.js';
import { ALERT_STREAM, COST_STREAM } from '../../contract/streams';
import { formatDecimal } from '../../lambda/core/decimal';
import type { LedgerTotal } from '../../lambda/adapters/ledger-reader';
import { REJECTION_ATTRIBUTES } from '../../lambda/adapters/sqs-dead-letters';
import type { FaultKind, FaultRates } from '../runtime/faults';
import type { GroundTruth } from '../scenarios/generator';
import type { InputProblem } from '../input-file';
import type { StreamStats } from '../runtime/poller';
import type { CapturedPublish } from '../emulators/sns-in-process';
import type { ExportDiffReport, ExportReport } from './export-executions';
import type { ExpectedExport, ExpectedExportChange } from '../scenarios/sample';
import type { ReconciliationRow } from '../reconciliation/stand-in';
import { acquisitionTable, type AcquisitionReport } from './acquisitions';
import { pushSummaryLines, type PushRunReport } from './push-report';

export interface CostStreamReport {
  applied: number;
  restated: number;
  duplicates: number;
  superseded: number;
  conflicts: number;
  rejected: number;
  retried: number;
}

export interface AlertStreamReport {
  notified: number;
  duplicates: number;
  observed: number;
  rejected: number;
  retried: number;
}

/** The export planner's and chunk workers' records: manifests planned / chunks committed, repeats, S3 test events. */
export interface ExportStreamReport {
  applied: number;
  duplicates: number;
  observed: number;
  rejected: number;
  retried: number;
}

export interface NotificationReport {
  kind: string;
  tenant: string;
  accountId: string;
  key: string;
  subject: string;
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Verdict {
  status: 'PASS' | 'FAIL';
  /** One line: why. "no ground truth (input file)" for --input runs. */
  summary: string;
  checks: Check[];
}

export interface QueueSettings {
  fifo: boolean;
  batchSize: number;
  maxBatchingWindowSeconds: number;
  maxConcurrency: number;
  functionTimeoutSeconds: number;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number | null;
}

/** A message SNS refused (too large, invalid ids…): skipped, never a crash of the run. */
export interface UnpublishedMessage {
  /** 1-based position in the published stream. */
  message: number;
  /** Line of the --input file. */
  line?: number;
  note?: string;
  topic: string;
  error: string;
}

export const describeUnpublished = (problem: UnpublishedMessage): string =>
  `${problem.line !== undefined ? `line ${problem.line}` : `message ${problem.message}${problem.note ? ` (${problem.note})` : ''}`}: ${problem.error}`;

export interface RunInfo {
  mode: 'sample' | 'input';
  seed: number;
  faults: FaultRates;
  injected: Record<FaultKind, number>;
  durationMs: number;
  /** Published messages per second, first publish to drained (redrive phase excluded). */
  eventsPerSecond: number;
  /** Messages the local SNS refused; with --input they are also in `input.skipped`. */
  unpublished: UnpublishedMessage[];
  input?: { file: string; lines: number; skipped: InputProblem[] };
  streams: Record<
    string,
    QueueSettings & {
      lostAcks: number;
      timeouts: number;
      exhausted: number;
      invocations: number;
      emulatorDuplicates: number;
      heldBack: number;
      awaitExpired: number;
    }
  >;
  /** What each export switch changed: per account and currency, the old and new snapshot totals. */
  exportDiffs: ExportDiffReport[];
}

export interface LocalReport {
  published: number;
  streams: Record<string, CostStreamReport | AlertStreamReport | ExportStreamReport>;
  broker: { deliveries: number; redeliveries: number; deduplicated: number };
  deadLetters: Record<string, number>;
  ledger: LedgerTotal[];
  notifications: NotificationReport[];
  /** Every export execution in the ledger table, by tenant, billing period and delivery order. */
  exports: ExportReport[];
  /** Change notifications of re-exports (on the notifications topic, kind `export-diff`). */
  exportNotifications: ExportNotificationReport[];
  /** Stream-versus-export drift notifications (kind `provisional-drift`): one per account-period switch. */
  driftNotifications: DriftNotificationReport[];
  redriven: Record<string, number>;
  /** Every row of the run's reconcile steps (absent when none ran). */
  reconciliation?: ReconciliationRow[];
  /** The evidence archive in the local S3: objects, records, acknowledged messages it lacks. */
  archive: ArchiveReport;
  /** What the run sent to the push endpoint and how it was answered (absent: no push sample). */
  push?: PushRunReport;
  /** The Azure and GCP acquisition passes against their local stand-ins (absent: not run). */
  acquisitions?: AcquisitionReport[];
  verdict: Verdict;
  run: RunInfo;
}

export const streamReport = (
  stream: string,
  stats: StreamStats,
): CostStreamReport | AlertStreamReport | ExportStreamReport => {
  const o = stats.outcomes;
  if (stream !== COST_STREAM && stream !== ALERT_STREAM)
    return {
      applied: o.applied,
      duplicates: o.duplicate,
      observed: o.observed,
      rejected: o.rejected,
      retried: stats.retried,
    };
  return stream === COST_STREAM
    ? {
        applied: o.applied,
        restated: o.restated,
        duplicates: o.duplicate,
        superseded: o.superseded,
        conflicts: o.conflict,
        rejected: o.rejected,
        retried: stats.retried,
      }
    : {
        notified: o.notified,
        duplicates: o.duplicate,
        observed: o.observed,
        rejected: o.rejected,
        retried: stats.retried,
      };
};

/** A re-export's change notification (kind `export-diff`): one per account-currency over the threshold. */
export interface ExportNotificationReport {
  tenant: string;
  accountId: string;
  billingPeriod: string;
  currency: string;
  /** Exact signed decimal: new total minus old. */
  change: string;
  subject: string;
}

/** A provisional-drift notification: the stream of an account-period that far from its export. */
export interface DriftNotificationReport {
  tenant: string;
  accountId: string;
  billingPeriod: string;
  subject: string;
}

export const driftNotificationOf = (publish: CapturedPublish): DriftNotificationReport => ({
  tenant: publish.attributes.tenant ?? '',
  accountId: publish.attributes.account ?? '',
  billingPeriod: bodyField(publish.message, 'billing period'),
  subject: publish.subject ?? '',
});

const bodyField = (message: string, name: string): string =>
  new RegExp(`^${name}: (.*)$`, 'm').exec(message)?.[1] ?? '';

export const exportNotificationOf = (publish: CapturedPublish): ExportNotificationReport => ({
  tenant: publish.attributes.tenant ?? '',
  accountId: publish.attributes.account ?? '',
  billingPeriod: bodyField(publish.message, 'billing period'),
  currency: bodyField(publish.message, 'currency'),
  change: bodyField(publish.message, 'change'),
  subject: publish.subject ?? '',
});

const changeText = (c: {
  tenant: string;
  billingPeriod: string;
  accountId: string;
  currency: string;
}) => `${c.tenant} ${c.billingPeriod} ${c.accountId} ${c.currency}`;

/**
 * One notification per account-currency whose re-export delta reaches the threshold, with that exact
 * delta, published once; none for the period's first export.
 */
export const exportNotificationsAgainstTruth = (
  changes: readonly ExpectedExportChange[],
  threshold: string,
  actual: readonly ExportNotificationReport[],
): Check => {
  const expected = changes.filter((c) => new Big(c.delta).abs().gte(threshold));
  const problems: string[] = [];
  for (const change of expected) {
    const sent = actual.filter((n) => changeText(n) === changeText(change));
    if (sent.length !== 1) problems.push(`${changeText(change)} notified ${sent.length}×`);
    else if (!new Big(sent[0].change).eq(change.delta))
      problems.push(`${changeText(change)}: change ${sent[0].change}, expected ${change.delta}`);
  }
  for (const notification of actual)
    if (!expected.some((c) => changeText(c) === changeText(notification)))
      problems.push(`unexpected ${changeText(notification)} ${notification.change}`);
  return {
    name: 'export notifications',
    ok: problems.length === 0,
    detail: line(
      problems,
      `${expected.length} re-export change(s) of at least ${threshold} notified exactly once each`,
    ),
  };
};

export const notificationOf = (publish: CapturedPublish): NotificationReport => ({
  kind: publish.attributes.kind ?? '',
  tenant: publish.attributes.tenant ?? '',
  accountId: publish.attributes.accountId ?? '',
  key: /Alert key: ([0-9a-f]+)/.exec(publish.message)?.[1] ?? '',
  subject: publish.subject ?? '',
});

export interface DeadLetter {
  body: string;
  attributes: Record<string, string>;
  /** Set by SQS on messages it moved after maxReceiveCount. */
  deadLetterSource?: string;
}

/** What was published: the dead letter's body, or the Message of the SNS envelope it is (envelope delivery). */
const publishedText = (body: string): string => {
  try {
    const value = JSON.parse(body) as { Type?: unknown; Message?: unknown } | null;
    if (value?.Type === 'Notification' && typeof value.Message === 'string') return value.Message;
  } catch {
    // not JSON: a raw message
  }
  return body;
};

const totalKey = (t: { tenant: string; accountId: string; period: string; currency: string }) =>
  `${t.tenant}|${t.accountId}|${t.period}|${t.currency}`;

/** A row's corrections as text, exact decimals normalized (`1.50` and `1.5` read the same). */
const correctionsOf = (t: LedgerTotal): string =>
  (t.corrections ?? [])
    .map((c) => `${formatDecimal(new Big(c.total))} in ${c.charges} of ${c.of}`)
    .join(', ') || 'none';

const diffLedger = (expected: LedgerTotal[], actual: LedgerTotal[]): string[] => {
  const want = new Map(expected.map((t) => [totalKey(t), t]));
  const got = new Map(actual.map((t) => [totalKey(t), t]));
  const problems: string[] = [];
  for (const [key, t] of want) {
    const a = got.get(key);
    if (!a) problems.push(`${key}: missing (expected ${t.total} in ${t.charges} charges)`);
    else if (a.total !== t.total || a.charges !== t.charges)
      problems.push(
        `${key}: ${a.total} in ${a.charges} charges, expected ${t.total} in ${t.charges}`,
      );
    else if (t.status !== undefined && (a.status ?? 'open') !== t.status)
      problems.push(`${key}: ${a.status ?? 'open'}, expected ${t.status}`);
    else if (t.status !== undefined && correctionsOf(a) !== correctionsOf(t))
      problems.push(`${key}: corrections ${correctionsOf(a)}, expected ${correctionsOf(t)}`);
  }
  for (const [key, a] of got)
    if (!want.has(key))
      problems.push(`${key}: unexpected total ${a.total} in ${a.charges} charges`);
  return problems;
};

const line = (problems: string[], ok: string) =>
  problems.length === 0
    ? ok
    : `${problems.length} problem(s): ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? '; …' : ''}`;

const exportText = (e: ExpectedExport | ExportReport) =>
  `${e.tenant} ${e.billingPeriod} ${e.executionId} ${e.status} (${e.rows} rows, ${e.rejectedRows} rejected)`;

/** The exports must be exactly the expected executions with their status and row counts. */
export const exportsAgainstTruth = (
  expected: readonly ExpectedExport[],
  actual: readonly ExportReport[],
): Check => {
  const want = expected.map(exportText);
  const got = actual.map(exportText);
  const problems = [
    ...want.filter((text) => !got.includes(text)).map((text) => `missing ${text}`),
    ...got.filter((text) => !want.includes(text)).map((text) => `unexpected ${text}`),
  ];
  const current = actual.filter((e) => e.status === 'current').length;
  return {
    name: 'exports',
    ok: problems.length === 0,
    detail: line(
      problems,
      `${actual.length} executions as expected (${current} current, the latest of each period; ${actual.length - current} superseded)`,
    ),
  };
};

/** Without truth: every planned execution finished (current, superseded or failed with a reason). */
export const exportsFinished = (actual: readonly ExportReport[]): Check => {
  const incomplete = actual.filter((e) => e.status === 'incomplete');
  return {
    name: 'exports',
    ok: incomplete.length === 0,
    detail: line(
      incomplete.map((e) => `${exportText(e)}: not every task done`),
      `${actual.length} execution(s) finished`,
    ),
  };
};

export const verdictAgainstTruth = (
  truth: GroundTruth,
  ledger: LedgerTotal[],
  notifications: NotificationReport[],
  deadLetters: Record<string, DeadLetter[]>,
  settled: Check,
  unpublished: UnpublishedMessage[] = [],
  exportChecks: Check[] = [],
): Verdict => {
  const checks: Check[] = [
    settled,
    {
      name: 'published',
      ok: unpublished.length === 0,
      detail:
        unpublished.length === 0
          ? 'every sample message was accepted by SNS'
          : `${unpublished.length} message(s) refused by SNS (first: ${describeUnpublished(unpublished[0])})`,
    },
  ];
  const costDlq = deadLetters[COST_STREAM] ?? [];
  // A conflict: whichever copy the ledger booked first wins; the other must be in the DLQ as a conflict.
  const expected = truth.ledger.map((t) => ({ ...t }));
  const conflictProblems: string[] = [];
  for (const pair of truth.conflicts) {
    const firstIn = costDlq.some((m) => publishedText(m.body) === pair.first.message);
    const secondIn = costDlq.some((m) => publishedText(m.body) === pair.second.message);
    if (firstIn === secondIn) {
      conflictProblems.push(
        `eventId conflict: ${firstIn ? 'both copies' : 'neither copy'} in the DLQ`,
      );
      continue;
    }
    if (firstIn) {
      const entry = expected.find((t) => totalKey(t) === totalKey(pair.first.effect));
      if (entry)
        entry.total = formatDecimal(
          new Big(entry.total).minus(pair.first.effect.amount).plus(pair.second.effect.amount),
        );
    }
  }
  checks.push({
    name: 'ledger',
    ok: conflictProblems.length === 0 && diffLedger(expected, ledger).length === 0,
    detail: line(
      [...conflictProblems, ...diffLedger(expected, ledger)],
      `${ledger.length} totals equal the ground truth exactly`,
    ),
  });

  const counts = new Map<string, number>();
  for (const n of notifications) counts.set(n.key, (counts.get(n.key) ?? 0) + 1);
  const notificationProblems = [
    ...truth.notificationKeys
      .filter((key) => !counts.has(key))
      .map((key) => `missing ${key.slice(0, 12)}`),
    ...[...counts.entries()]
      .filter(([key]) => !truth.notificationKeys.includes(key))
      .map(([key]) => `unexpected ${key.slice(0, 12)}`),
    ...[...counts.entries()]
      .filter(([, count]) => count > 1)
      .map(([key, count]) => `${key.slice(0, 12)} published ${count}×`),
  ];
  checks.push({
    name: 'notifications',
    ok: notificationProblems.length === 0,
    detail: line(
      notificationProblems,
      `${truth.notificationKeys.length} alerts notified exactly once each`,
    ),
  });

  checks.push(...exportChecks);

  const dlqProblems: string[] = [];
  let copies = 0;
  const expectedDeadLetters: Record<string, number> = {
    ...Object.fromEntries(Object.keys(deadLetters).map((stream) => [stream, 0])),
    ...truth.deadLetters,
  };
  for (const [stream, expectedCount] of Object.entries(expectedDeadLetters)) {
    const messages = deadLetters[stream] ?? [];
    // The consumer forwards a poison message and then acks it; when that ack is lost the message comes
    // back and is forwarded again (and a redrive turns each copy into a message of its own). Copies of
    // one message (same body) count once; they are reported as copies.
    const distinct = new Map<string, DeadLetter>();
    for (const message of messages) {
      if (distinct.has(message.body)) copies++;
      else distinct.set(message.body, message);
    }
    if (distinct.size !== expectedCount)
      dlqProblems.push(`${stream}: ${distinct.size} dead letters, expected ${expectedCount}`);
    const bodies = new Set<string>();
    for (const message of distinct.values()) {
      if (!message.attributes[REJECTION_ATTRIBUTES.reason])
        dlqProblems.push(
          `${stream}: a dead letter without a rejection reason (${message.body.slice(0, 40)})`,
        );
      if (bodies.has(message.body))
        dlqProblems.push(`${stream}: a message is in the DLQ twice (${message.body.slice(0, 40)})`);
      bodies.add(message.body);
    }
  }
  checks.push({
    name: 'dead letters',
    ok: dlqProblems.length === 0,
    detail: line(
      dlqProblems,
      `only the expected rejections (poison, conflicts, forged tenants, closed periods), once each, with their reasons${copies > 0 ? ` (plus ${copies} cop${copies === 1 ? 'y' : 'ies'} of a forwarded message after lost acks)` : ''}`,
    ),
  });
  const failed = checks.filter((check) => !check.ok);
  return {
    status: failed.length === 0 ? 'PASS' : 'FAIL',
    summary:
      failed.length === 0
        ? 'ledger, exports and notifications equal the ground truth exactly'
        : failed.map((check) => `${check.name}: ${check.detail}`).join(' | '),
    checks,
  };
};

/** --input runs have no truth: they pass when every message ended settled. */
export const verdictWithoutTruth = (
  deadLetters: Record<string, DeadLetter[]>,
  settled: Check,
  skipped: InputProblem[],
  exportCheck?: Check,
  ...archive: Check[]
): Verdict => {
  const unexplained = Object.entries(deadLetters).flatMap(([stream, messages]) =>
    messages
      .filter((m) => !m.attributes[REJECTION_ATTRIBUTES.reason] && !m.deadLetterSource)
      .map((m) => `${stream}: ${m.body.slice(0, 40)}`),
  );
  const checks: Check[] = [
    settled,
    {
      name: 'dead letters',
      ok: unexplained.length === 0,
      detail: line(
        unexplained.map((u) => `no reason and no source: ${u}`),
        'each has a rejection reason or exhausted its receives',
      ),
    },
    {
      name: 'input',
      ok: skipped.length === 0,
      detail:
        skipped.length === 0
          ? 'every line published'
          : `${skipped.length} bad line(s) skipped (first: line ${skipped[0].line}: ${skipped[0].error})`,
    },
    ...(exportCheck ? [exportCheck] : []),
    ...archive,
  ];
  const failed = checks.filter((check) => !check.ok);
  return {
    status: failed.length === 0 ? 'PASS' : 'FAIL',
    summary:
      failed.length === 0
        ? 'no ground truth (input file); every message settled'
        : `no ground truth (input file); ${failed.map((check) => `${check.name}: ${check.detail}`).join(' | ')}`,
    checks,
  };
};

const table = (rows: string[][]): string => {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) =>
          column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]),
        )
        .join('  '),
    )
    .join('\n');
};

export const summaryText = (report: LocalReport): string => {
  const out: string[] = [];
  const { run } = report;
  out.push(
    `billing-dedup local run — ${run.mode === 'sample' ? `sample (seed ${run.seed})` : `input ${run.input?.file}`}, faults ${Object.entries(
      run.faults,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}`,
  );
  out.push(
    `published ${report.published}${run.unpublished.length > 0 || (run.input?.skipped.length ?? 0) > 0 ? ` (${run.input ? `of ${run.input.lines} lines` : `of ${report.published + run.unpublished.length} messages`})` : ''} in ${(run.durationMs / 1000).toFixed(1)} s (${run.eventsPerSecond.toFixed(0)} events/s end to end); deliveries ${report.broker.deliveries}, redeliveries ${report.broker.redeliveries}, deduplicated by the broker ${report.broker.deduplicated}`,
  );
  if (run.unpublished.length > 0) {
    out.push(`not published (skipped): ${run.unpublished.length}`);
    for (const problem of run.unpublished.slice(0, 10))
      out.push(`  ${describeUnpublished(problem)}`);
    if (run.unpublished.length > 10)
      out.push(`  … ${run.unpublished.length - 10} more (see --report)`);
  }
  const unpublishedLines = new Set(run.unpublished.map((problem) => problem.line));
  const badLines = (run.input?.skipped ?? []).filter(
    (problem) => !unpublishedLines.has(problem.line),
  );
  if (badLines.length > 0) {
    out.push(`bad input lines (skipped): ${badLines.length}`);
    for (const problem of badLines.slice(0, 10))
      out.push(`  line ${problem.line}: ${problem.error}`);
    if (badLines.length > 10) out.push(`  … ${badLines.length - 10} more (see --report)`);
  }
  out.push(
    `faults injected: ${Object.entries(run.injected)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  out.push('');
  for (const [stream, counts] of Object.entries(report.streams)) {
    const settings = run.streams[stream];
    out.push(
      `${stream} (${settings.fifo ? 'FIFO' : 'standard'}; batch ${settings.batchSize}, visibility ${settings.visibilityTimeoutSeconds} s in the template — compressed locally, maxReceiveCount ${settings.maxReceiveCount ?? 'none'}, timeout ${settings.functionTimeoutSeconds} s)`,
    );
    const entries = Object.entries(counts);
    out.push(
      table([
        ['  outcome', ...entries.map(([name]) => name), 'dead letters', 'redriven'],
        [
          '  count',
          ...entries.map(([, value]) => String(value)),
          String(report.deadLetters[stream] ?? 0),
          String(report.redriven[stream] ?? 0),
        ],
      ]),
    );
  }
  out.push('');
  const ledgerRows = report.ledger
    .slice(0, 40)
    .map((t) => [
      `  ${t.tenant}`,
      t.accountId,
      t.period,
      t.currency,
      t.total,
      String(t.charges),
      t.status ?? 'open',
      (t.corrections ?? []).map((c) => `${c.total} of ${c.of}`).join(', ') || '-',
    ]);
  const provisional = report.ledger.flatMap((t) => t.provisional ?? []);
  out.push(
    `ledger: ${report.ledger.length} totals${
      provisional.length > 0
        ? ` (excluding ${provisional.reduce((n, p) => n + p.charges, 0)} provisional stream charge(s) superseded by their provider's export)`
        : ''
    }`,
  );
  if (ledgerRows.length > 0)
    out.push(
      table([
        ['  tenant', 'account', 'period', 'currency', 'total', 'charges', 'status', 'corrections'],
        ...ledgerRows,
      ]),
    );
  if (report.ledger.length > 40) out.push(`  … ${report.ledger.length - 40} more (see --report)`);
  out.push(
    `notifications: ${report.notifications.length}${report.exportNotifications.length > 0 ? ` (and ${report.exportNotifications.length} export change notification(s))` : ''}`,
  );
  if (report.exports.length > 0) {
    out.push(`exports: ${report.exports.length} executions`);
    out.push(
      table([
        ['  tenant', 'period', 'execution', 'status', 'rows', 'rejected'],
        ...report.exports.map((e) => [
          `  ${e.tenant}`,
          e.billingPeriod,
          e.executionId,
          e.status,
          String(e.rows),
          String(e.rejectedRows),
        ]),
      ]),
    );
    for (const diff of run.exportDiffs.filter((d) => d.previousExecutionId)) {
      out.push(
        `  re-export ${diff.tenant} ${diff.billingPeriod}: ${diff.executionId} replaced ${diff.previousExecutionId}`,
      );
      for (const account of diff.accounts)
        out.push(
          `    ${account.accountId} ${account.currency}  ${account.old} → ${account.new}  (${account.delta.startsWith('-') ? '' : '+'}${account.delta})`,
        );
    }
  }
  if (report.push) out.push(...pushSummaryLines(report.push));
  if (report.acquisitions) {
    out.push(`acquisitions: ${report.acquisitions.length} pass(es) against local stand-ins`);
    if (report.acquisitions.length > 0) out.push(table(acquisitionTable(report.acquisitions)));
  }
  out.push(
    `archive: ${report.archive.objects} objects, ${report.archive.records} records, ${report.archive.missing} acknowledged message(s) missing`,
  );
  out.push('');
  for (const check of report.verdict.checks)
    out.push(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
  out.push(`verdict: ${report.verdict.status} — ${report.verdict.summary}`);
  return out.join('\n');
};
