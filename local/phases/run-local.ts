/**
 * `npm start`: the synthesized stack on this machine, as a sequence of phases (local/phases/):
 * synthesize, start the environment, wire the template's event source mappings to the real handlers
 * under pollers with faults, publish the sample (or the input file), drain, optionally redrive the
 * DLQs with faults off and drain again, and report against the ground truth.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  FaultPlan,
  NO_FAULTS,
  DEFAULT_SAMPLE_FAULTS,
  type DynamoCall,
  type FaultRates,
} from '../runtime/faults';
import { generateSample, type Sample, type SampleMessage } from '../scenarios/generator';
import {
  readInputFile,
  type InputFile,
  type InputProblem,
  type PeriodAction,
  type RunStep,
} from '../input-file';
import { ENV } from '../../contract/environment';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import type { SampleLatePolicy } from '../scenarios/truth';
import { notificationRulesOf } from '../emulators/s3-notifications';
import { ExportDeliverer, type ExportDelivery } from '../exports/delivery';
import { writeSampleExports } from '../exports/files';
import { exportPrefixOf, exportSourcesFor } from '../exports/sources';
import { S3Client } from '@aws-sdk/client-s3';
import { readAllTotals } from '../../lambda/adapters/ledger-reader';
import { localS3ClientConfig } from '../emulators/s3';
import type { AcquisitionReport } from '../report/acquisitions';
import { ACQUISITION_TENANTS, runAcquisitions, startAcquisitionSources } from './acquisitions';
import { throwIfAborted } from './abort';
import { Cleanups } from './cleanups';
import { drainUntilQuiet } from './drain';
import { startEnvironment, type LocalEnvironment } from './environment';
import { startHandlerRuntime } from './handler-runtime';
import { sampleSteps, StepRunner } from './steps';
import { queueDepth } from './queue-probe';
import { targetKey } from './publish';
import { localTenantsContext } from '../runtime/tenant-context';
import { redriveDeadLetters } from './redrive';
import { readRunEnd, reportOf } from './judge';
import { ProgressTicker } from './ticker';
import { describeWiring, wireStreams, type StreamWiring } from './wiring';
import type { RecordEvent } from '../runtime/poller';
import { silentProgress, type ProgressSink } from '../report/progress';
import type { DeadLetter, LocalReport } from '../report/run-report';
import { synthesize } from '../runtime/synth';
import { PUSH_ENDPOINT_KEY } from '../../contract/push-endpoint';
import { pushSummaryLines, type PushRunReport } from '../report/push-report';
import { runPushSample } from './push';
import { attachPushFunction, issuePushCredentials, startPushStandIns } from './push-endpoint';
import {
  ProviderStandIn,
  reconcileLocally,
  reconciliationCheck,
  type ReconciliationRow,
} from '../reconciliation/stand-in';

export { AbortedError } from './abort';
export type { LocalEnvironment } from './environment';

export const DEFAULT_SEED = 42;
const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
const DEFAULT_DRAIN_TIMEOUT_MS = 10 * 60_000;

export interface RunOptions {
  /** JSONL input instead of the generated sample. */
  input?: string;
  /** Default: light faults for the sample, none for an input file. */
  faults?: FaultRates;
  seed?: number;
  /** Extra CDK context for the synth (e.g. `{ maxReceiveCount: 3 }`). */
  context?: Record<string, unknown>;
  /** A ready-made sample (tests); default: generateSample({ seed }). */
  sample?: Sample;
  /** Charges per account and month of the generated sample. */
  sampleSize?: number;
  /** After draining: redrive every DLQ with faults off and drain again. */
  redrive?: boolean;
  /** Keep the emulators (and pollers, faults off) running until `signal` aborts. */
  keepRunning?: boolean;
  progress?: ProgressSink;
  /** Where to write the stack outputs (default .local/stack-outputs.json; false: nowhere). */
  outputsFile?: string | false;
  /** Handler log lines (default .local/handler-logs.jsonl; false: dropped). */
  handlerLogFile?: string | false;
  /** Aborts the run (Ctrl-C); the emulators are stopped either way. */
  signal?: AbortSignal;
  /** Test hooks. */
  permanentThrottle?: (call: DynamoCall) => boolean;
  onRecord?: (event: RecordEvent) => void;
  onEnvironment?: (environment: LocalEnvironment) => void;
  /** Give up draining after this long (default 10 minutes). */
  drainTimeoutMs?: number;
  /**
   * Run the Azure and GCP acquisitions against their local stand-ins after the sample (default true;
   * never with an input file). `false` for cheap end-to-end tests that do not need them.
   */
  acquisitions?: boolean;
}

export interface RunResult {
  report: LocalReport;
  exitCode: 0 | 1;
  /** What each DLQ held at the end (peeked and put back). */
  deadLetters: Record<string, DeadLetter[]>;
  environment: { endpoints: LocalEnvironment['endpoints']; jvmPid?: number };
}

const localFile = (option: string | false | undefined, name: string): string | undefined =>
  option === false ? undefined : (option ?? path.join(PROJECT_ROOT, '.local', name));

const faultsText = (rates: FaultRates): string =>
  Object.entries(rates)
    .map(([kind, rate]) => `${kind}=${rate}`)
    .join(',');

const waitForAbort = (signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    if (!signal || signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });

const keepRunningText = (
  environment: LocalEnvironment,
  outputsFile: string | false | undefined,
  pushUrl?: string,
) =>
  [
    'local environment running (faults off) — Ctrl-C to stop',
    `  DynamoDB Local  ${environment.endpoints.dynamodb} (jvm pid ${environment.dynamo.process.pid})`,
    `  SQS emulator    ${environment.endpoints.sqs}`,
    `  SNS (Publish)   ${environment.endpoints.sns}`,
    `  S3 (path-style) ${environment.endpoints.s3}`,
    ...(pushUrl ? [`  push endpoint   ${pushUrl} (/pubsub, /azure/{tenant}, /v1/events)`] : []),
    `  stack outputs   ${outputsFile === false ? '(not written)' : (outputsFile ?? '.local/stack-outputs.json')}`,
    '  e.g. BILLING_DEDUP_OUTPUTS_FILE=.local/stack-outputs.json npx billing-dedup ledger …',
  ].join('\n');

export const runLocal = async (options: RunOptions = {}): Promise<RunResult> => {
  const progress = options.progress ?? silentProgress;
  const { signal } = options;
  const seed = options.seed ?? DEFAULT_SEED;
  const input: InputFile | undefined = options.input ? readInputFile(options.input) : undefined;
  const faultRates = options.faults ?? (input ? NO_FAULTS : DEFAULT_SAMPLE_FAULTS);

  const sample = input
    ? undefined
    : (options.sample ??
      generateSample({
        seed,
        chargesPerAccountMonth: options.sampleSize,
        lateChargePolicy: latePolicyOf(options.context),
      }));
  const withAcquisitions = !input && options.acquisitions !== false;
  const exportTenants = input
    ? (input.steps ?? []).flatMap((step) => (step.kind === 'export' ? [step.delivery.tenant] : []))
    : [
        ...(sample?.exports ?? []).map((delivery) => delivery.tenant),
        ...(withAcquisitions ? ACQUISITION_TENANTS : []),
      ];
  const exportConfig = exportSourcesFor(exportTenants, options.context);

  const cleanups = new Cleanups();
  try {
    // The push endpoint's URL and key set exist before the synth: the stack is configured with them.
    const pushSample = sample?.pushes;
    const push = pushSample ? await startPushStandIns(pushSample, cleanups) : undefined;
    if (push && options.context?.[PUSH_ENDPOINT_KEY] !== undefined)
      progress.phase(`-c ${PUSH_ENDPOINT_KEY} ignored: the sample configures the push endpoint`);
    progress.phase('synthesizing the CDK app (in-process, bundling skipped)…');
    const stacks = synthesize({
      ...localTenantsContext(exportTenants, exportConfig.context),
      ...push?.context,
    });
    throwIfAborted(signal);

    progress.phase('starting DynamoDB Local and the SQS emulator on free loopback ports…');
    const started = await startEnvironment({
      stacks,
      cleanups,
      outputsFile: localFile(options.outputsFile, 'stack-outputs.json'),
      signal,
      ...(push ? { httpApiEndpoint: push.api.url } : {}),
    });
    const { environment, pollerSqs, localSns } = started;
    options.onEnvironment?.(environment);

    const faults = new FaultPlan({
      rates: faultRates,
      seed,
      permanentThrottle: options.permanentThrottle,
    });
    const clients = startHandlerRuntime({
      started,
      faults,
      cleanups,
      handlerLogFile: localFile(options.handlerLogFile, 'handler-logs.jsonl'),
    });
    const wirings = wireStreams({
      plan: environment.plan,
      localSns,
      pollerSqs,
      clients,
      faults,
      cleanups,
      onRecord: options.onRecord,
    });
    for (const wiring of wirings) progress.phase(describeWiring(wiring));
    let pushReport: PushRunReport | undefined;
    let sendPushes: (() => Promise<void>) | undefined;
    if (push && pushSample) {
      const attached = attachPushFunction({ plan: environment.plan, api: push.api, clients });
      const credentials = await issuePushCredentials(
        started.adminDynamo,
        attached.ledgerTable,
        pushSample,
      );
      progress.phase(
        `push endpoint ${push.api.url} (function ${attached.functionName}; Google keys ${push.jwksUrl}): ${pushSample.requests.length} requests to send`,
      );
      sendPushes = async () => {
        pushReport = await runPushSample({
          url: push.api.url,
          audience: push.audience,
          google: push.google,
          forger: push.forger,
          credentials: { ...credentials, iam: push.iam },
          sample: pushSample,
          signal,
        });
        progress.phase(pushSummaryLines(pushReport).join('\n'));
      };
    }

    const messages: SampleMessage[] = input ? input.messages : allMessagesOf(sample as Sample);
    const steps = input
      ? (input.steps ?? [{ kind: 'messages', messages }])
      : sampleRunSteps(sample as Sample, cleanups, sendPushes !== undefined);
    if (input)
      for (const problem of input.skipped.slice(0, 20))
        progress.phase(`--input line ${problem.line} skipped: ${problem.error}`);
    progress.phase(
      `publishing ${messages.length} messages (${input ? `from ${options.input}` : `sample, seed ${seed}`}) with faults ${faultsText(faultRates)}…`,
    );
    const drainStreams = (only?: readonly StreamWiring[]) =>
      drainUntilQuiet({
        streams: (only ?? wirings).map((wiring) => ({
          idle: () => wiring.poller.idle(),
          depth: () => queueDepth(pollerSqs, wiring.queue),
        })),
        timeoutMs: options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
        signal,
      });
    const exportBucket = environment.plan.functions
      .map((fn) => fn.environment.EXPORT_BUCKET_NAME)
      .find(Boolean);
    const deliveryTopics = new Set(
      environment.plan.bucketNotifications.flatMap((notification) =>
        notificationRulesOf(notification.configuration).map((rule) => rule.topicArn),
      ),
    );
    const deliverer = exportBucket
      ? new ExportDeliverer({
          s3: environment.s3.client,
          bucket: exportBucket,
          sources: exportConfig.sources,
        })
      : undefined;
    const exportProblems: InputProblem[] = [];
    const ledgerTable = environment.plan.functions
      .map((fn) => fn.environment[ENV.ledgerTableName])
      .find(Boolean);
    const periods = ledgerTable
      ? new DynamoPeriods({ client: started.adminDynamo, ledgerTable })
      : undefined;
    const standIn = new ProviderStandIn();
    let reconciliation: ReconciliationRow[] | undefined;
    const runner = new StepRunner({
      publisher: {
        targets: new Map(
          wirings.flatMap((wiring) => [
            ...(wiring.topicArn
              ? [
                  [
                    wiring.stream,
                    {
                      topicArn: wiring.topicArn,
                      fifoTopic: wiring.fifoTopic,
                      settled: () => settledOf(wiring),
                    },
                  ] as const,
                ]
              : []),
            ...wiring.tenantTopics.map(
              ({ tenant, topicArn }) =>
                [
                  targetKey({ topic: wiring.stream, tenantTopic: tenant }),
                  { topicArn, fifoTopic: wiring.fifoTopic, settled: () => settledOf(wiring) },
                ] as const,
            ),
          ]),
        ),
        publish: (request) => localSns.publish(request),
        signal,
        onUnpublished: (line) => progress.phase(line),
      },
      deliverExport: async (delivery: ExportDelivery) => {
        if (!deliverer)
          throw new Error('the synthesized stack has no export bucket (EXPORT_BUCKET_NAME)');
        const delivered = await deliverer.deliver(delivery);
        progress.phase(
          `export ${delivery.tenant} ${delivery.billingPeriod} ${delivery.executionId}${delivered.repeated ? ' (manifest delivered again)' : ''}: ${delivery.files.length} file(s) → s3://${exportBucket}/${delivered.manifestKey}`,
        );
        await environment.s3.settled();
        await drainStreams(wirings.filter((w) => w.topicArn && deliveryTopics.has(w.topicArn)));
      },
      settle: async () => {
        await environment.s3.settled();
        await drainStreams();
      },
      onExportProblem: (problem, error) => {
        if (!input) throw error;
        exportProblems.push(problem);
        progress.phase(`--input line ${problem.line} skipped: ${problem.error}`);
      },
      periodAction: async ({ action, key, reason }: PeriodAction) => {
        if (!periods) throw new Error('the synthesized stack has no ledger table');
        const status =
          action === 'close'
            ? await periods.close(key, LOCAL_RUN_PRINCIPAL, reason)
            : await periods.reopen(key, LOCAL_RUN_PRINCIPAL, reason);
        progress.phase(
          `${action === 'close' ? 'closed' : 'reopened'} ${key.tenant} ${key.accountId} ${key.period}${action === 'close' ? `: ${status.totalsAtClose.map((t) => `${t.currency} ${t.total} (${t.charges} charges)`).join(', ') || 'nothing booked'}` : ''}`,
        );
      },
      providerTotal: (total) => standIn.add(total),
      reconcile: async (period: string) => {
        if (!ledgerTable) throw new Error('the synthesized stack has no ledger table');
        const rows = await reconcileLocally(
          started.adminDynamo,
          ledgerTable,
          standIn,
          period,
          Date.now(),
        );
        reconciliation = [...(reconciliation ?? []), ...rows];
        progress.phase(`reconciled ${period}: ${reconciliationCheck(rows).detail}`);
      },
      onPeriodProblem: (problem, error) => {
        if (!input) throw error;
        exportProblems.push(problem);
        progress.phase(`--input line ${problem.line} skipped: ${problem.error}`);
      },
      sendPushes,
    });
    const ticker = new ProgressTicker({
      progress,
      wirings,
      total: messages.length,
      published: () => runner.published,
      debug: process.env.BILLING_DEDUP_LOCAL_DEBUG === '1',
    });
    cleanups.add(() => ticker.stop());
    const runStarted = Date.now();
    const { published, unpublished } = await runner.run(steps);
    const drain = async () => {
      await environment.s3.settled();
      await drainStreams();
    };
    await drain();
    const durationMs = Date.now() - runStarted;

    let acquisitions: AcquisitionReport[] | undefined;
    if (withAcquisitions) {
      if (!exportBucket || !ledgerTable)
        throw new Error('the synthesized stack has no export bucket or ledger table');
      progress.phase('acquisitions: starting the BigQuery stand-in and Azurite…');
      const acquisitionS3 = new S3Client({
        ...localS3ClientConfig(environment.endpoints.s3),
        // s3rver stores the aws-chunked framing of a streamed PUT with a flexible checksum.
        requestChecksumCalculation: 'WHEN_REQUIRED',
      });
      cleanups.add(() => acquisitionS3.destroy());
      acquisitions = await runAcquisitions({
        sources: await startAcquisitionSources(
          (tenant) => exportPrefixOf(exportConfig.sources, tenant),
          cleanups,
        ),
        clients: {
          dynamo: started.adminDynamo,
          s3: acquisitionS3,
          readSecret: (arn) => Promise.reject(new Error(`the local run has no secret ${arn}`)),
          ledgerTable,
          exportBucket,
        },
        drain,
        readLedger: () => readAllTotals(started.adminDynamo, ledgerTable),
        progress: (line) => progress.phase(line),
      });
    }

    let redriven: Record<string, number> = Object.fromEntries(wirings.map((w) => [w.stream, 0]));
    if (options.redrive) {
      ticker.enter('redrive');
      faults.disable();
      redriven = await redriveDeadLetters({
        streams: wirings,
        sqs: pollerSqs,
        onQueue: (line) => progress.phase(line),
      });
      await drain();
    }
    ticker.stop();
    progress.done();

    const end = await readRunEnd({
      wirings,
      plan: environment.plan,
      sqs: pollerSqs,
      dynamo: started.adminDynamo,
      s3: environment.s3.client,
      localSns,
    });
    const report = reportOf(
      {
        seed,
        faults: faultRates,
        injected: faults.injected,
        durationMs,
        published,
        unpublished,
        redriven,
        deduplicatedByBroker: localSns.deduplicated,
        sample,
        exportProblems,
        ...(reconciliation ? { reconciliation } : {}),
        ...(pushReport ? { push: pushReport } : {}),
        ...(acquisitions
          ? { acquisitions: { tenants: ACQUISITION_TENANTS, rows: acquisitions } }
          : {}),
        ...(input ? { input: { file: options.input as string, contents: input } } : {}),
      },
      end,
      wirings,
    );

    if (options.keepRunning) {
      faults.disable();
      progress.phase(keepRunningText(environment, options.outputsFile, push?.api.url));
      await waitForAbort(signal);
    }
    return {
      report,
      exitCode: report.verdict.status === 'PASS' ? 0 : 1,
      deadLetters: end.deadLetters,
      environment: { endpoints: environment.endpoints, jvmPid: environment.dynamo.process.pid },
    };
  } finally {
    await cleanups.runAll();
  }
};

/** The sample's export files in a folder of the run (removed at the end), delivered among its messages. */
const sampleRunSteps = (sample: Sample, cleanups: Cleanups, withPushes: boolean): RunStep[] => {
  const directory = mkdtempSync(path.join(tmpdir(), 'billing-dedup-exports-'));
  cleanups.add(() => rmSync(directory, { recursive: true, force: true }));
  return sampleSteps(
    sample.messages,
    writeSampleExports(directory, sample.exports ?? []),
    sample.closing,
    sample.reconciliation,
    withPushes,
  );
};

/** Who closes and reopens periods in the local run (recorded as `closedBy` / `reopenedBy`). */
export const LOCAL_RUN_PRINCIPAL = 'local-run';

/** Every message the sample publishes, its closing's included. */
const allMessagesOf = (sample: Sample): SampleMessage[] => [
  ...sample.messages,
  ...(sample.closing ? [...sample.closing.before, ...sample.closing.after] : []),
];

/** The late-charge policy a `-c lateChargePolicy=…` run deploys, for the sample's truth. */
const latePolicyOf = (context: Record<string, unknown> | undefined): SampleLatePolicy =>
  context?.lateChargePolicy === 'reject' ? 'reject' : 'roll-forward';

/** Records of a stream that reached an outcome or were dead-lettered after their last receive. */
const settledOf = (wiring: StreamWiring): number =>
  Object.values(wiring.poller.stats.outcomes).reduce((a, b) => a + b, 0) +
  wiring.poller.stats.exhausted;
