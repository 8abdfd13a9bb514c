/**
 * Phase 6, report: what each DLQ holds, what is left in the source queues, the ledger and the
 * notifications, judged against the sample's ground truth (or, for an input file, on their own).
 */
import {
  DEFAULT_EXPORT_DIFF_THRESHOLD,
  ENV,
  readLateChargePolicy,
} from '../../contract/environment';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { readAllTotals, type LedgerTotal } from '../../lambda/adapters/ledger-reader';
import {
  readExportReport,
  type ExportDiffReport,
  type ExportReport,
} from '../report/export-executions';
import type { FaultRates } from '../runtime/faults';
import type { InputFile, InputProblem } from '../input-file';
import { EXPORT_DIFF_KIND } from '../../lambda/core/exports/diff-message';
import { PROVISIONAL_DRIFT_KIND } from '../../lambda/core/exports/provisional-drift-message';
import {
  driftNotificationOf,
  exportNotificationOf,
  exportNotificationsAgainstTruth,
  exportsAgainstTruth,
  exportsFinished,
  notificationOf,
  type DriftNotificationReport,
  type ExportNotificationReport,
  streamReport,
  verdictAgainstTruth,
  verdictWithoutTruth,
  type Check,
  type DeadLetter,
  type LocalReport,
  type NotificationReport,
  type RunInfo,
  type UnpublishedMessage,
} from '../report/run-report';
import type { GroundTruth, Sample } from '../scenarios/sample';
import { pushCheck, type PushRunReport } from '../report/push-report';
import type { ReconciliationRow } from '../reconciliation/stand-in';
import { reconciliationAgainstTruth } from '../report/reconciliation-check';
import {
  archiveCheck,
  readArchiveReport,
  rebuildCheck,
  type ArchiveReport,
} from '../report/archive-check';
import { rebuildFromArchive } from '../report/archive-rebuild';
import { acquisitionsCheck, type AcquisitionReport } from '../report/acquisitions';
import type { LocalSns } from '../emulators/sns-in-process';
import type { LocalPlan } from '../runtime/template';
import { peekDeadLetters, queueDepth } from './queue-probe';
import type { StreamWiring } from './wiring';
import { ARCHIVE_SPOOL } from '../../contract/streams';

/** How the run went, as the earlier phases saw it. */
export interface RunFacts {
  seed: number;
  faults: FaultRates;
  injected: RunInfo['injected'];
  durationMs: number;
  published: number;
  unpublished: UnpublishedMessage[];
  redriven: Record<string, number>;
  deduplicatedByBroker: number;
  /** The generated sample, or the input file it was read from. */
  sample?: Sample;
  input?: { file: string; contents: InputFile };
  /** Export lines that could not be delivered (input files). */
  exportProblems?: InputProblem[];
  /** Rows of the run's reconcile steps (absent when none ran). */
  reconciliation?: ReconciliationRow[];
  /** The push sample's answers (absent when none was sent). */
  push?: PushRunReport;
  /** The acquisition passes and the tenants only they book to (absent when they did not run). */
  acquisitions?: { tenants: readonly string[]; rows: AcquisitionReport[] };
}

/** What the run left behind, read from the emulators. */
export interface RunEnd {
  deadLetters: Record<string, DeadLetter[]>;
  leftovers: (readonly [string, number])[];
  ledger: LedgerTotal[];
  notifications: NotificationReport[];
  exports: ExportReport[];
  exportDiffs: ExportDiffReport[];
  exportNotifications: ExportNotificationReport[];
  /** Stream-versus-export drift notifications (kind `provisional-drift`), one per account-period switch. */
  driftNotifications: DriftNotificationReport[];
  /** EXPORT_DIFF_THRESHOLD of the template's chunk worker. */
  exportDiffThreshold: string;
  archive: ArchiveReport;
  /** How many messages the queues acknowledged (each must be archived). */
  acknowledged: number;
}

export const settledCheck = (leftovers: RunEnd['leftovers']): Check => {
  const empty = leftovers.every(([, depth]) => depth === 0);
  return {
    name: 'settled',
    ok: empty,
    detail: empty
      ? 'nothing left in a source queue or in flight'
      : leftovers.map(([stream, depth]) => `${stream}: ${depth} left`).join(', '),
  };
};

/** Input lines skipped when read and lines SNS refused, in line order. */
export const skippedInputOf = (
  input: InputFile,
  unpublished: readonly UnpublishedMessage[],
  exportProblems: readonly InputProblem[] = [],
): InputProblem[] =>
  [
    ...input.skipped,
    ...exportProblems,
    ...unpublished.map((problem) => ({
      line: problem.line as number,
      error: `not published: ${problem.error}`,
    })),
  ].sort((a, b) => a.line - b.line);

const streamSettings = (wiring: Pick<StreamWiring, 'poller'>): RunInfo['streams'][string] => {
  const { mapping, fn, queue } = wiring.poller.options;
  const s = wiring.poller.stats;
  return {
    fifo: queue.fifo,
    batchSize: mapping.batchSize,
    maxBatchingWindowSeconds: mapping.maxBatchingWindowSeconds,
    maxConcurrency: mapping.maxConcurrency ?? 10,
    functionTimeoutSeconds: fn.timeoutSeconds,
    visibilityTimeoutSeconds: queue.visibilityTimeoutSeconds,
    maxReceiveCount: queue.redrive?.maxReceiveCount ?? null,
    lostAcks: s.lostAcks,
    timeouts: s.timeouts,
    exhausted: s.exhausted,
    invocations: s.invocations,
    emulatorDuplicates: s.emulatorDuplicates,
    heldBack: s.heldBack,
    awaitExpired: s.awaitExpired,
  };
};

/**
 * The truth with the alerts whose key depends on when the endpoint received them (an Azure AIP budget
 * alert's period is that month), as the accepted requests' answers give it.
 */
export const withPushAlerts = (
  truth: GroundTruth,
  push: PushRunReport | undefined,
): GroundTruth => {
  const keys = (push?.outcomes ?? []).flatMap((outcome) => outcome.alertKey ?? []);
  return keys.length === 0
    ? truth
    : { ...truth, notificationKeys: [...new Set([...truth.notificationKeys, ...keys])].sort() };
};

/**
 * What the sample's own checks judge: the run's end without the acquisition tenants' totals,
 * executions and notifications (the acquisitions check judges those against their stand-ins).
 */
export const withoutTenants = (end: RunEnd, tenants: readonly string[]): RunEnd => {
  if (tenants.length === 0) return end;
  const kept = (row: { tenant: string }) => !tenants.includes(row.tenant);
  return {
    ...end,
    ledger: end.ledger.filter(kept),
    notifications: end.notifications.filter(kept),
    exports: end.exports.filter(kept),
    exportNotifications: end.exportNotifications.filter(kept),
    driftNotifications: end.driftNotifications.filter(kept),
  };
};

export const reportOf = (
  facts: RunFacts,
  fullEnd: RunEnd,
  wirings: readonly Pick<StreamWiring, 'stream' | 'poller'>[],
): LocalReport => {
  const end = withoutTenants(fullEnd, facts.acquisitions?.tenants ?? []);
  const settled = settledCheck(end.leftovers);
  const archived = archiveCheck(end.archive, end.acknowledged);
  const rebuilt = end.archive.rebuild ? [rebuildCheck(end.archive.rebuild)] : [];
  const skippedInput = facts.input
    ? skippedInputOf(facts.input.contents, facts.unpublished, facts.exportProblems)
    : [];
  const { sample } = facts;
  const truth = sample && withPushAlerts(sample.truth, facts.push);
  const verdict =
    sample && truth
      ? verdictAgainstTruth(
          truth,
          end.ledger,
          end.notifications,
          end.deadLetters,
          settled,
          facts.unpublished,
          [
            exportsAgainstTruth(sample.truth.exports ?? [], end.exports),
            exportNotificationsAgainstTruth(
              sample.truth.exportChanges ?? [],
              end.exportDiffThreshold,
              end.exportNotifications,
            ),
            ...(sample.truth.reconciliation
              ? [reconciliationAgainstTruth(sample.truth.reconciliation, facts.reconciliation)]
              : []),
            ...(sample.pushes
              ? [
                  facts.push
                    ? pushCheck(
                        facts.push,
                        sample.pushes.requests.some((r) => r.burst),
                      )
                    : { name: 'push', ok: false, detail: 'the push sample was not sent' },
                ]
              : []),
            archived,
            ...rebuilt,
            ...(facts.acquisitions ? [acquisitionsCheck(facts.acquisitions.rows)] : []),
          ],
        )
      : verdictWithoutTruth(
          end.deadLetters,
          settled,
          skippedInput,
          exportsFinished(end.exports),
          archived,
          ...rebuilt,
        );
  const run: RunInfo = {
    mode: facts.input ? 'input' : 'sample',
    seed: facts.seed,
    faults: facts.faults,
    injected: { ...facts.injected },
    durationMs: facts.durationMs,
    eventsPerSecond: facts.published / Math.max(0.001, facts.durationMs / 1000),
    unpublished: facts.unpublished,
    ...(facts.input
      ? {
          input: {
            file: facts.input.file,
            lines: facts.input.contents.lines,
            skipped: skippedInput,
          },
        }
      : {}),
    streams: Object.fromEntries(wirings.map((w) => [w.stream, streamSettings(w)])),
    exportDiffs: end.exportDiffs,
  };
  return {
    published: facts.published,
    streams: Object.fromEntries(
      wirings.map((w) => [w.stream, streamReport(w.stream, w.poller.stats)]),
    ),
    broker: {
      deliveries: wirings.reduce((sum, w) => sum + w.poller.stats.deliveries, 0),
      redeliveries: wirings.reduce((sum, w) => sum + w.poller.stats.redeliveries, 0),
      deduplicated: facts.deduplicatedByBroker,
    },
    deadLetters: Object.fromEntries(
      Object.entries(end.deadLetters).map(([stream, list]) => [stream, list.length]),
    ),
    ledger: fullEnd.ledger,
    notifications: fullEnd.notifications,
    exports: fullEnd.exports,
    exportNotifications: fullEnd.exportNotifications,
    driftNotifications: fullEnd.driftNotifications,
    redriven: facts.redriven,
    ...(facts.reconciliation ? { reconciliation: facts.reconciliation } : {}),
    archive: end.archive,
    ...(facts.push ? { push: facts.push } : {}),
    ...(facts.acquisitions ? { acquisitions: facts.acquisitions.rows } : {}),
    verdict,
    run,
  };
};

export const readRunEnd = async (options: {
  wirings: readonly StreamWiring[];
  plan: LocalPlan;
  sqs: SQSClient;
  dynamo: DynamoDBClient;
  s3: S3Client;
  localSns: LocalSns;
}): Promise<RunEnd> => {
  const { wirings, plan, sqs } = options;
  const deadLetters: Record<string, DeadLetter[]> = {};
  for (const wiring of wirings)
    deadLetters[wiring.stream] = wiring.dlq ? await peekDeadLetters(sqs, wiring.dlq) : [];
  const leftovers = await Promise.all(
    wirings.map(async (w) => [w.stream, await queueDepth(sqs, w.queue)] as const),
  );
  const ledgerTable = plan.functions.map((fn) => fn.environment[ENV.ledgerTableName]).find(Boolean);
  const ledger = ledgerTable ? await readAllTotals(options.dynamo, ledgerTable) : [];
  const exportReport = ledgerTable
    ? await readExportReport(options.dynamo, ledgerTable)
    : { exports: [], diffs: [] };
  const notificationTopics = new Set(
    plan.functions.map((fn) => fn.environment.NOTIFICATIONS_TOPIC_ARN).filter(Boolean),
  );
  const published = options.localSns.captured.filter((publish) =>
    notificationTopics.has(publish.topicArn),
  );
  const archiveBucket = plan.functions
    .map((fn) => fn.environment[ENV.archiveBucketName])
    .find(Boolean);
  // The archiver's spool messages are the archive itself: every other acknowledged message must be in it.
  const acknowledged = new Set(
    wirings
      .filter((w) => w.poller.options.stream !== ARCHIVE_SPOOL.name)
      .flatMap((w) => [...w.poller.acknowledged]),
  );
  const archived = archiveBucket
    ? await readArchiveReport(options.s3, archiveBucket, acknowledged)
    : { objects: 0, records: 0, missing: acknowledged.size };
  const archive: ArchiveReport =
    archiveBucket && ledgerTable
      ? {
          ...archived,
          rebuild: await rebuildFromArchive({
            s3: options.s3,
            dynamo: options.dynamo,
            bucket: archiveBucket,
            liveTable: ledgerTable,
            policy: readLateChargePolicy(
              plan.functions.find((fn) => fn.environment[ENV.lateChargePolicy])?.environment ?? {},
            ),
          }),
        }
      : archived;
  const isExportDiff = (publish: (typeof published)[number]) =>
    publish.attributes.kind === EXPORT_DIFF_KIND;
  const isDrift = (publish: (typeof published)[number]) =>
    publish.attributes.kind === PROVISIONAL_DRIFT_KIND;
  return {
    deadLetters,
    leftovers,
    ledger,
    notifications: published
      .filter((publish) => !isExportDiff(publish) && !isDrift(publish))
      .map(notificationOf),
    exports: exportReport.exports,
    exportDiffs: exportReport.diffs,
    exportNotifications: published.filter(isExportDiff).map(exportNotificationOf),
    driftNotifications: published.filter(isDrift).map(driftNotificationOf),
    exportDiffThreshold:
      plan.functions.map((fn) => fn.environment[ENV.exportDiffThreshold]).find(Boolean) ??
      DEFAULT_EXPORT_DIFF_THRESHOLD,
    archive,
    acknowledged: acknowledged.size,
  };
};
