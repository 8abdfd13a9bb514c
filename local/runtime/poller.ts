/**
 * The event-source poller: Lambda's SQS event source mapping, in-process, for one queue and function.
 *
 * - Receives with short waits (WaitTimeSeconds 0) and the queue's own visibility timeout; hands batches
 *   of up to BatchSize records to the real handler, at most MaximumConcurrency invocations at a time,
 *   honouring MaximumBatchingWindowInSeconds on standard queues.
 * - Partial batch responses: only records not listed in `batchItemFailures` are deleted; an empty or
 *   unknown itemIdentifier, a thrown error or a timed-out invocation fails the whole batch.
 * - Local time compression: a failed record is made visible again at once (ChangeMessageVisibility 0)
 *   instead of after the template's visibility timeout — but never before the invocation that held it
 *   is over, which is the order the real invariant (visibility ≥ 6 × function timeout) guarantees.
 *   The receive count and the move to the DLQ after maxReceiveCount stay the emulator's (its
 *   redrive policy is the template's).
 * - FIFO: local-aws-sqs does not lock a message group while one of its messages is in flight, so the
 *   poller does: later messages of a locked group are held in memory (they are already invisible in the
 *   emulator; their visibility is extended if a hold grows long, never bounced with a new receive) and
 *   handed over in order once the group is free. A group whose records were released waits until those
 *   records are received again, so the group's order survives lost acks, failures and timeouts.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { OUTCOMES, type Outcome } from '../../lambda/core/outcomes';
import type { FaultPlan } from './faults';
import type { LocalHandler } from './functions';
import { lambdaContext, sqsEvent, sqsRecordFromMessage } from './lambda-sim';
import { invocationScope, type InvocationScope } from './invocations';
import type { FunctionPlan, MappingPlan, QueuePlan } from './template';

export interface StreamStats {
  outcomes: Record<Outcome, number>;
  /** Record processings that ended failed (handler `failed`, thrown or timed-out batch) and were redelivered. */
  retried: number;
  /** Record processings that ended failed on the last allowed receive: the emulator moved them to the DLQ. */
  exhausted: number;
  invocations: number;
  deliveries: number;
  redeliveries: number;
  lostAcks: number;
  timeouts: number;
  /** Copies of a message the emulator returned while the poller still held it (quirk absorbed). */
  emulatorDuplicates: number;
  /** Records of a locked FIFO group the emulator returned, held back by the poller. */
  heldBack: number;
  /** Released FIFO records that did not come back in time and stopped blocking their group (should be 0). */
  awaitExpired: number;
}

export const emptyStats = (): StreamStats => ({
  outcomes: Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as Record<Outcome, number>,
  retried: 0,
  exhausted: 0,
  invocations: 0,
  deliveries: 0,
  redeliveries: 0,
  lostAcks: 0,
  timeouts: 0,
  emulatorDuplicates: 0,
  heldBack: 0,
  awaitExpired: 0,
});

export interface PollerOptions {
  stream: string;
  queue: QueuePlan;
  mapping: MappingPlan;
  fn: FunctionPlan;
  sqs: SQSClient;
  createHandler: () => LocalHandler;
  faults: FaultPlan;
  /** Local cap on concurrent invocations when the mapping sets no MaximumConcurrency (default 10). */
  defaultConcurrency?: number;
  /** Per-record observer (tests): every processing of a record with its outcome. */
  onRecord?: (event: RecordEvent) => void;
}

export interface RecordEvent {
  stream: string;
  messageId: string;
  groupId?: string;
  body: string;
  receiveCount: number;
  outcome: Outcome | 'timeout' | 'error';
  released: boolean;
  lostAck: boolean;
}

interface Held {
  message: Message;
  seq: number;
  receiveCount: number;
  groupId?: string;
  heldSince: number;
}

interface Group {
  pending: Held[];
  locked: boolean;
  /** Released records of this group not yet received again, with the time of release. */
  awaiting: Map<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Local time compression of the visibility timeout: a released record becomes visible again after
 * 1/1000 of the template's value (185 s → 185 ms), and never before the invocation that held it is over.
 */
export const TIME_COMPRESSION = 1000;
/** A released record that does not come back within this time no longer blocks its group. */
const AWAIT_LIMIT_MS = 10_000;

export class QueuePoller {
  readonly stats = emptyStats();
  /** Every message this poller deleted from its queue: what the archive must hold. */
  readonly acknowledged = new Set<string>();
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly buffer: Held[] = [];
  private readonly groups = new Map<string, Group>();
  /** Messages handed to the poller and not yet settled (held, in a batch, or being released). */
  private readonly known = new Map<string, Held>();
  private readonly firstSeen = new Map<string, number>();
  private sequence = 0;
  private inFlight = 0;
  private abandonedRunning = 0;
  private pendingReleases = 0;
  private lastReceiveEmpty = false;
  private waiters: (() => void)[] = [];
  private readonly containers: LocalHandler[] = [];
  private invocationCounter = 0;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly maxReceiveCount: number;

  constructor(readonly options: PollerOptions) {
    this.concurrency = options.mapping.maxConcurrency ?? options.defaultConcurrency ?? 10;
    this.timeoutMs = options.fn.timeoutSeconds * 1000;
    this.maxReceiveCount = options.queue.redrive?.maxReceiveCount ?? Number.POSITIVE_INFINITY;
  }

  get fifo(): boolean {
    return this.options.queue.fifo;
  }

  start(): void {
    this.loops.push(this.receiveLoop());
    for (let worker = 0; worker < this.concurrency; worker++) this.loops.push(this.workerLoop());
    this.loops.push(this.keeperLoop());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.signal();
    await Promise.all(this.loops);
  }

  /** Internal state for diagnostics (BILLING_DEDUP_LOCAL_DEBUG=1). */
  debugState(): Record<string, number | boolean> {
    return {
      known: this.known.size,
      buffer: this.buffer.length,
      inFlight: this.inFlight,
      abandoned: this.abandonedRunning,
      releases: this.pendingReleases,
      awaiting: [...this.groups.values()].reduce((sum, group) => sum + group.awaiting.size, 0),
      locked: [...this.groups.values()].filter((group) => group.locked).length,
      lastEmpty: this.lastReceiveEmpty,
    };
  }

  /** Nothing held, nothing in flight (abandoned invocations included), and the last receive was empty. */
  idle(): boolean {
    return (
      this.known.size === 0 &&
      this.inFlight === 0 &&
      this.abandonedRunning === 0 &&
      this.pendingReleases === 0 &&
      this.lastReceiveEmpty
    );
  }

  private signal(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private group(id: string): Group {
    let group = this.groups.get(id);
    if (!group) {
      group = { pending: [], locked: false, awaiting: new Map() };
      this.groups.set(id, group);
    }
    return group;
  }

  private held(): number {
    return this.known.size;
  }

  // ------------------------------------------------------------ receiving

  private async receiveLoop(): Promise<void> {
    const { sqs, queue, mapping } = this.options;
    const limit = Math.max(20, this.concurrency * mapping.batchSize * 2);
    while (!this.stopped) {
      // Past the limit only a group waiting for its released records needs more receives.
      const awaiting = [...this.groups.values()].some((group) => group.awaiting.size > 0);
      if (this.held() >= limit && !awaiting) {
        await this.wait(20);
        continue;
      }
      let messages: Message[] = [];
      try {
        messages =
          (
            await sqs.send(
              new ReceiveMessageCommand({
                QueueUrl: queue.url,
                MaxNumberOfMessages: 10,
                WaitTimeSeconds: 0,
                AttributeNames: ['All'],
                MessageAttributeNames: ['All'],
              }),
            )
          ).Messages ?? [];
      } catch (error) {
        if (this.stopped) break;
        process.emitWarning(`receive from ${queue.queueName} failed: ${String(error)}`);
        await sleep(200);
        continue;
      }
      for (const message of messages) this.accept(message);
      this.lastReceiveEmpty = messages.length === 0;
      this.signal();
      if (messages.length === 0) await this.wait(25);
    }
  }

  private accept(message: Message): void {
    const id = message.MessageId as string;
    const receiveCount = Number(message.Attributes?.ApproximateReceiveCount ?? '1');
    const already = this.known.get(id);
    if (already) {
      // The emulator handed out a message the poller still holds (visibility ran out during a hold,
      // or a long poll returned it twice). Keep one copy, with the newest receipt handle.
      this.stats.emulatorDuplicates++;
      already.message = message;
      already.receiveCount = receiveCount;
      return;
    }
    let seq = this.firstSeen.get(id);
    if (seq === undefined) {
      seq = this.sequence++;
      this.firstSeen.set(id, seq);
    }
    const groupId = message.Attributes?.MessageGroupId;
    const held: Held = { message, seq, receiveCount, groupId, heldSince: Date.now() };
    this.known.set(id, held);
    if (this.fifo) {
      const group = this.group(groupId ?? '');
      group.awaiting.delete(id);
      if (group.locked || group.pending.length > 0) this.stats.heldBack++;
      group.pending.push(held);
      group.pending.sort((a, b) => a.seq - b.seq);
    } else {
      this.buffer.push(held);
    }
  }

  /** Held records whose hold approaches the visibility timeout get more time (never a new receive). */
  private async keeperLoop(): Promise<void> {
    const visibilityMs = this.options.queue.visibilityTimeoutSeconds * 1000;
    while (!this.stopped) {
      await this.wait(1000);
      const now = Date.now();
      for (const held of [...this.known.values()]) {
        if (now - held.heldSince < visibilityMs / 2) continue;
        held.heldSince = now;
        await this.options.sqs
          .send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: this.options.queue.url,
              ReceiptHandle: held.message.ReceiptHandle,
              VisibilityTimeout: this.options.queue.visibilityTimeoutSeconds,
            }),
          )
          .catch(() => undefined);
      }
    }
  }

  // ------------------------------------------------------------ batching

  private takeFifoBatch(): Held[] | undefined {
    const now = Date.now();
    const ready = [...this.groups.entries()]
      .filter(([, group]) => {
        for (const [id, visibleAt] of group.awaiting)
          if (now - visibleAt > AWAIT_LIMIT_MS) {
            group.awaiting.delete(id);
            this.stats.awaitExpired++;
          }
        return !group.locked && group.awaiting.size === 0 && group.pending.length > 0;
      })
      .sort(([, a], [, b]) => a.pending[0].seq - b.pending[0].seq);
    if (ready.length === 0) return undefined;
    const batch: Held[] = [];
    for (const [, group] of ready) {
      if (batch.length >= this.options.mapping.batchSize) break;
      const take = group.pending.splice(0, this.options.mapping.batchSize - batch.length);
      batch.push(...take);
      group.locked = true;
    }
    return batch;
  }

  private async nextBatch(): Promise<Held[] | undefined> {
    const { batchSize, maxBatchingWindowSeconds } = this.options.mapping;
    if (this.fifo) {
      const batch = this.takeFifoBatch();
      if (!batch) await this.wait(50);
      return batch;
    }
    if (this.buffer.length === 0) {
      await this.wait(50);
      return undefined;
    }
    // Batching window: wait for a full batch, at most the window, and not past an empty receive.
    const windowEnd = Date.now() + maxBatchingWindowSeconds * 1000;
    while (
      !this.stopped &&
      this.buffer.length < batchSize &&
      Date.now() < windowEnd &&
      !this.lastReceiveEmpty
    ) {
      await this.wait(Math.min(50, windowEnd - Date.now()));
    }
    const batch = this.buffer.splice(0, batchSize);
    return batch.length > 0 ? batch : undefined;
  }

  private async workerLoop(): Promise<void> {
    while (!this.stopped) {
      const batch = await this.nextBatch();
      if (!batch || batch.length === 0) continue;
      this.inFlight++;
      try {
        await this.invoke(batch);
      } finally {
        this.inFlight--;
        this.signal();
      }
    }
  }

  // ------------------------------------------------------------ invoking

  private async invoke(batch: Held[]): Promise<void> {
    const { stats } = this;
    const { fn } = this.options;
    stats.invocations++;
    for (const held of batch) {
      stats.deliveries++;
      if (held.receiveCount > 1) stats.redeliveries++;
    }
    const handler = this.containers.pop() ?? this.options.createHandler();
    const scope: InvocationScope = {
      invocationId: ++this.invocationCounter,
      stream: this.options.stream,
      abandoned: false,
      results: [],
    };
    const event = sqsEvent(
      batch.map((held) =>
        sqsRecordFromMessage(held.message, {
          queueArn: this.options.queue.arn,
          receiveCount: held.receiveCount,
        }),
      ),
    );
    type Ending =
      { kind: 'done'; response: unknown } | { kind: 'error'; error: unknown } | { kind: 'timeout' };
    // The timers are armed before the handler runs: its synchronous part (a slow parser, a busy loop)
    // counts against the deadline, as it does on Lambda.
    const started = Date.now();
    const deadline = started + this.timeoutMs;
    const abandonAfter = this.options.faults.abandonAfterMs();
    const limitMs = Math.min(this.timeoutMs, abandonAfter ?? Number.POSITIVE_INFINITY);
    const timers: NodeJS.Timeout[] = [];
    const timeout = (ms: number) =>
      new Promise<Ending>((resolve) =>
        timers.push(setTimeout(() => resolve({ kind: 'timeout' }), ms)),
      );
    const timedOut = timeout(limitMs);
    const run: Promise<Ending> = new Promise((resolve) =>
      resolve(
        invocationScope.run(scope, () =>
          handler(
            event,
            lambdaContext({
              functionName: fn.functionName,
              functionArn: fn.arn,
              memoryMb: fn.memoryMb,
              deadline,
              logStreamName: 'local',
            }),
          ),
        ),
      ),
    ).then(
      (response): Ending => ({ kind: 'done', response }),
      (error: unknown): Ending => ({ kind: 'error', error }),
    );
    const raced = await Promise.race([run, timedOut]);
    for (const timer of timers) clearTimeout(timer);
    // A handler that blocked the event loop past the limit settles before the timer can fire: it still
    // timed out.
    const ending: Ending = Date.now() - started >= limitMs ? { kind: 'timeout' } : raced;

    if (ending.kind === 'timeout') {
      // Lambda gives up on the invocation and discards its environment; the handler may still be
      // running here. Its records come back only once it is over (or at the real deadline).
      scope.abandoned = true;
      stats.timeouts++;
      this.abandonedRunning++;
      let deadlineTimer: NodeJS.Timeout | undefined;
      await Promise.race([
        run,
        new Promise(
          (resolve) => (deadlineTimer = setTimeout(resolve, Math.max(0, deadline - Date.now()))),
        ),
      ]);
      clearTimeout(deadlineTimer);
      this.abandonedRunning--;
      await this.settle(
        batch,
        new Set(batch.map((held) => held.message.MessageId as string)),
        'timeout',
      );
      return;
    }
    this.containers.push(handler);
    const ids = new Set(batch.map((held) => held.message.MessageId as string));
    let failed: Set<string>;
    if (ending.kind === 'error') {
      failed = ids;
    } else if (!this.options.mapping.reportBatchItemFailures) {
      failed = new Set();
    } else {
      const items = (
        ending.response as { batchItemFailures?: { itemIdentifier?: unknown }[] } | null
      )?.batchItemFailures;
      const listed = (items ?? []).map((item) => item?.itemIdentifier);
      // An empty or unknown itemIdentifier makes Lambda retry the whole batch.
      failed = listed.every((id) => typeof id === 'string' && ids.has(id))
        ? new Set(listed as string[])
        : ids;
    }
    for (const result of scope.results) {
      if (result.outcome !== 'failed') stats.outcomes[result.outcome]++;
    }
    await this.settle(batch, failed, ending.kind === 'error' ? 'error' : undefined, scope);
  }

  /** Deletes what succeeded (unless the ack is lost), releases what failed, then frees the groups. */
  private async settle(
    batch: Held[],
    failed: Set<string>,
    failure?: 'timeout' | 'error',
    scope?: InvocationScope,
  ): Promise<void> {
    const { sqs, queue, faults, onRecord } = this.options;
    const deletes: Held[] = [];
    const releases: Held[] = [];
    const outcomeOf = new Map(
      scope?.results.map((result) => [result.messageId, result.outcome]) ?? [],
    );
    for (const held of batch) {
      const id = held.message.MessageId as string;
      const isFailed = failed.has(id);
      const lostAck = !isFailed && faults.loseAck();
      if (isFailed) {
        if (held.receiveCount >= this.maxReceiveCount) this.stats.exhausted++;
        else this.stats.retried++;
      }
      if (lostAck) this.stats.lostAcks++;
      (isFailed || lostAck ? releases : deletes).push(held);
      if (!isFailed && !lostAck) this.acknowledged.add(id);
      onRecord?.({
        stream: this.options.stream,
        messageId: id,
        groupId: held.groupId,
        body: held.message.Body ?? '',
        receiveCount: held.receiveCount,
        outcome: failure ?? outcomeOf.get(id) ?? (isFailed ? 'failed' : 'duplicate'),
        released: isFailed || lostAck,
        lostAck,
      });
    }
    // Forget the batch before anything becomes visible again: a record received again right after
    // its release is a new delivery, not a duplicate copy of a held one.
    for (const held of batch) this.known.delete(held.message.MessageId as string);
    for (let start = 0; start < deletes.length; start += 10) {
      const chunk = deletes.slice(start, start + 10);
      await sqs
        .send(
          new DeleteMessageBatchCommand({
            QueueUrl: queue.url,
            Entries: chunk.map((held, index) => ({
              Id: String(index),
              ReceiptHandle: held.message.ReceiptHandle,
            })),
          }),
        )
        .catch((error: unknown) =>
          process.emitWarning(`delete on ${queue.queueName} failed: ${String(error)}`),
        );
    }
    // Compressed visibility timeout: the records come back after 1/1000 of the template's timeout.
    const delay = Math.round((queue.visibilityTimeoutSeconds * 1000) / TIME_COMPRESSION);
    const visibleAt = Date.now() + delay;
    for (const held of releases) {
      const id = held.message.MessageId as string;
      // On its last allowed receive the emulator moves the record to the DLQ instead.
      if (this.fifo && held.receiveCount < this.maxReceiveCount)
        this.group(held.groupId ?? '').awaiting.set(id, visibleAt);
    }
    if (releases.length > 0) {
      this.pendingReleases++;
      setTimeout(() => {
        void Promise.all(
          releases.map((held) =>
            sqs
              .send(
                new ChangeMessageVisibilityCommand({
                  QueueUrl: queue.url,
                  ReceiptHandle: held.message.ReceiptHandle,
                  VisibilityTimeout: 0,
                }),
              )
              .catch(() => {
                // Already visible again or moved: the record is no longer ours to release.
                this.group(held.groupId ?? '').awaiting.delete(held.message.MessageId as string);
              }),
          ),
        ).finally(() => {
          this.pendingReleases--;
          this.signal();
        });
      }, delay);
    }
    if (this.fifo) for (const held of batch) this.group(held.groupId ?? '').locked = false;
    this.signal();
  }
}
