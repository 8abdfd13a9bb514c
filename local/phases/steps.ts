/**
 * Runs the run's steps in order: a group of messages is published (concurrently, as before), an export
 * is delivered to the local bucket once every earlier message was published and its manifest has been
 * planned (so a later execution of the same period is never read in its place), and a settle step waits
 * until nothing is left in any queue or in flight. A period step settles too, then closes or reopens the
 * period: every line before it is in the ledger, every line after it meets the new state. A provider
 * total is handed to the local stand-in; a reconcile step settles, then reconciles its period.
 */
import type { InputProblem, PeriodAction, RunStep } from '../input-file';
import type { ProviderTotalLine } from '../reconciliation/stand-in';
import type { UnpublishedMessage } from '../report/run-report';
import type { ExportDelivery } from '../exports/delivery';
import type { SampleClosing, SampleMessage } from '../scenarios/sample';
import type { SampleReconciliation } from '../scenarios/reconciliation';
import { Publisher, type PublisherOptions } from './publish';

export interface StepRunnerOptions {
  publisher: Omit<PublisherOptions, 'messages' | 'offset'>;
  /** Writes the export's files and manifest, and waits until its manifest was planned. */
  deliverExport: (delivery: ExportDelivery) => Promise<void>;
  settle: () => Promise<void>;
  /** Closes or reopens a billing period (after `settle`). */
  periodAction: (action: PeriodAction) => Promise<void>;
  /** Tells the provider stand-in one total. */
  providerTotal: (total: ProviderTotalLine) => void;
  /** Reconciles one period against the stand-in (after `settle`). */
  reconcile: (period: string) => Promise<void>;
  /** An export that could not be delivered: recorded (input files) or thrown (the sample). */
  onExportProblem: (problem: InputProblem, error: unknown) => void;
  /** A period action that failed (closing a closed period…): recorded (input files) or thrown (the sample). */
  onPeriodProblem: (problem: InputProblem, error: unknown) => void;
  /** Sends the sample's push requests (HTTP, to the local push endpoint). */
  sendPushes?: () => Promise<void>;
}

export class StepRunner {
  private readonly publishers: Publisher[] = [];
  private readonly unpublished: UnpublishedMessage[] = [];
  private offset = 0;
  private pushes: Promise<{ error?: Error }> | undefined;

  constructor(private readonly options: StepRunnerOptions) {}

  /** Messages accepted by SNS so far (read live by the progress ticker). */
  get published(): number {
    return this.publishers.reduce((sum, publisher) => sum + publisher.published, 0);
  }

  async run(
    steps: readonly RunStep[],
  ): Promise<{ published: number; unpublished: UnpublishedMessage[] }> {
    for (const step of steps) {
      if (step.kind === 'messages') {
        const publisher = new Publisher({
          ...this.options.publisher,
          messages: step.messages,
          offset: this.offset,
        });
        this.publishers.push(publisher);
        this.offset += step.messages.length;
        this.unpublished.push(...(await publisher.run()).unpublished);
      } else if (step.kind === 'export') {
        try {
          await this.options.deliverExport(step.delivery);
        } catch (error) {
          this.options.onExportProblem(
            {
              line: step.delivery.line ?? 0,
              error: `export not delivered: ${(error as Error).message ?? String(error)}`,
            },
            error,
          );
        }
      } else if (step.kind === 'period') {
        await this.options.settle();
        try {
          await this.options.periodAction(step.period);
        } catch (error) {
          this.options.onPeriodProblem(
            {
              line: step.period.line ?? 0,
              error: `${step.period.action} failed: ${(error as Error).message ?? String(error)}`,
            },
            error,
          );
        }
      } else if (step.kind === 'providerTotal') this.options.providerTotal(step.total);
      else if (step.kind === 'reconcile') {
        await this.options.settle();
        try {
          await this.options.reconcile(step.period);
        } catch (error) {
          this.options.onPeriodProblem(
            {
              line: step.line ?? 0,
              error: `reconcile ${step.period} failed: ${(error as Error).message ?? String(error)}`,
            },
            error,
          );
        }
      } else if (step.kind === 'pushes') {
        if (step.phase === 'start') {
          const send = this.options.sendPushes;
          if (send === undefined) throw new Error('a push step without sendPushes');
          this.pushes = send().then(
            () => ({}),
            (error: unknown) => ({
              error: error instanceof Error ? error : new Error(String(error)),
            }),
          );
        } else {
          const { error } = (await this.pushes) ?? {};
          if (error !== undefined) throw error;
          await this.options.settle();
        }
      } else await this.options.settle();
    }
    return { published: this.published, unpublished: this.unpublished };
  }
}

/** The sample's closing at the end: `before`, the close once all settled, then the late messages. */
const closingSteps = (closing: SampleClosing | undefined): RunStep[] =>
  closing
    ? [
        { kind: 'messages', messages: closing.before },
        {
          kind: 'period',
          period: {
            action: 'close',
            key: {
              tenant: closing.close.tenant,
              accountId: closing.close.accountId,
              period: closing.close.period,
            },
            reason: closing.close.reason,
          },
        },
        { kind: 'messages', messages: closing.after },
      ]
    : [];

/** The provider's totals told to the stand-in, then their period reconciled (after everything settled). */
const reconciliationSteps = (reconciliation: SampleReconciliation | undefined): RunStep[] =>
  reconciliation
    ? [
        ...reconciliation.totals.map((total): RunStep => ({ kind: 'providerTotal', total })),
        { kind: 'reconcile', period: reconciliation.period },
      ]
    : [];

/**
 * The sample's steps: its exports delivered while its messages are published (and its push requests
 * sent, when it has them: they are all answered and settled before the closing), then its closing, then
 * its reconciliation.
 */
export const sampleSteps = (
  messages: readonly SampleMessage[],
  deliveries: readonly ExportDelivery[],
  closing?: SampleClosing,
  reconciliation?: SampleReconciliation,
  withPushes = false,
): RunStep[] => {
  const half = Math.ceil(messages.length / 2);
  const [first, ...rest] = deliveries.map((delivery): RunStep => ({ kind: 'export', delivery }));
  const last = rest.pop();
  return [
    ...(first ? [first] : []),
    ...(withPushes ? [{ kind: 'pushes', phase: 'start' } as const] : []),
    { kind: 'messages', messages: messages.slice(0, half) },
    ...rest,
    { kind: 'messages', messages: messages.slice(half) },
    ...(last ? [last] : []),
    ...(withPushes ? [{ kind: 'pushes', phase: 'finish' } as const] : []),
    ...closingSteps(closing),
    ...reconciliationSteps(reconciliation),
  ];
};
