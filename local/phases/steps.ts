/**
 * Runs the run's steps in order: a group of messages is published (concurrently, as before), an export
 * is delivered to the local bucket once every earlier message was published and its manifest has been
 * planned (so a later execution of the same period is never read in its place), and a settle step waits
 * until nothing is left in any queue or in flight.
 */
import type { InputProblem, RunStep } from '../input';
import type { UnpublishedMessage } from '../report';
import type { ExportDelivery } from '../exports/delivery';
import type { SampleMessage } from '../scenarios/sample';
import { Publisher, type PublisherOptions } from './publish';

export interface StepRunnerOptions {
  publisher: Omit<PublisherOptions, 'messages' | 'offset'>;
  /** Writes the export's files and manifest, and waits until its manifest was planned. */
  deliverExport: (delivery: ExportDelivery) => Promise<void>;
  settle: () => Promise<void>;
  /** An export that could not be delivered: recorded (input files) or thrown (the sample). */
  onExportProblem: (problem: InputProblem, error: unknown) => void;
}

export class StepRunner {
  private readonly publishers: Publisher[] = [];
  private readonly unpublished: UnpublishedMessage[] = [];
  private offset = 0;

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
      } else await this.options.settle();
    }
    return { published: this.published, unpublished: this.unpublished };
  }
}

/** The sample's steps: its exports delivered while its messages are published. */
export const sampleSteps = (
  messages: readonly SampleMessage[],
  deliveries: readonly ExportDelivery[],
): RunStep[] => {
  const half = Math.ceil(messages.length / 2);
  const [first, ...rest] = deliveries.map((delivery): RunStep => ({ kind: 'export', delivery }));
  const last = rest.pop();
  return [
    ...(first ? [first] : []),
    { kind: 'messages', messages: messages.slice(0, half) },
    ...rest,
    { kind: 'messages', messages: messages.slice(half) },
    ...(last ? [last] : []),
  ];
};
