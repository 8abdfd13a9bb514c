/**
 * An in-memory stand-in for the SQS queue in front of the consumers (no SQS in the throughput loop):
 * receive batches of up to 10, redeliver what was not acknowledged after a (compressed) visibility
 * timeout. Standard: any order, any record to any consumer. FIFO: records of one message group in
 * order and never two batches of one group in flight; a group is blocked while any of its records is
 * in flight or waiting to become visible again.
 */
import type { SQSRecord } from 'aws-lambda';
import { COST_STREAM } from '../../contract/streams';
import { sqsRecord } from '../../local/runtime/lambda-sim';
import type { Delivery } from './workload';

export interface QueueEntry {
  seq: number;
  groupId: string;
  record: SQSRecord;
  visibleAt: number;
  receives: number;
}

export const sqsRecordOf = (delivery: Delivery, fifo: boolean): SQSRecord =>
  sqsRecord({
    messageId: delivery.messageId,
    body: delivery.body,
    queueArn: `arn:aws:sqs:us-east-1:123456789012:${COST_STREAM}${fifo ? '.fifo' : ''}`,
    senderId: 'AIDABENCH',
    ...(fifo
      ? {
          fifo: {
            groupId: delivery.groupId,
            deduplicationId: delivery.messageId,
            sequenceNumber: String(18000000000000000000 + delivery.seq),
          },
        }
      : {}),
  });

export class SimulatedQueue {
  private readonly ready: QueueEntry[] = [];
  private readyHead = 0;
  private readonly delayed: QueueEntry[] = [];
  /** FIFO: group → pending entries in sequence order. */
  private readonly groups = new Map<string, QueueEntry[]>();
  private readonly inFlightGroups = new Set<string>();
  private inFlight = 0;
  private pending = 0;

  constructor(
    deliveries: readonly Delivery[],
    private readonly fifo: boolean,
  ) {
    for (const delivery of deliveries) {
      const entry: QueueEntry = {
        seq: delivery.seq,
        groupId: delivery.groupId,
        record: sqsRecordOf(delivery, fifo),
        visibleAt: 0,
        receives: 0,
      };
      this.add(entry);
    }
  }

  private add(entry: QueueEntry): void {
    this.pending++;
    if (this.fifo) {
      const group = this.groups.get(entry.groupId) ?? [];
      group.push(entry);
      if (group.length > 1 && group[group.length - 2].seq > entry.seq)
        group.sort((a, b) => a.seq - b.seq);
      this.groups.set(entry.groupId, group);
    } else if (entry.visibleAt > Date.now()) {
      this.delayed.push(entry);
    } else {
      this.ready.push(entry);
    }
  }

  /** Nothing pending and nothing in flight: the run is over. */
  get drained(): boolean {
    return this.pending === 0 && this.inFlight === 0;
  }

  /** Earliest time something may become receivable (for an idle consumer to sleep until). */
  nextVisibleAt(): number {
    let next = Infinity;
    if (this.fifo) {
      for (const [groupId, group] of this.groups)
        if (group.length > 0 && !this.inFlightGroups.has(groupId))
          next = Math.min(next, group[0].visibleAt);
    } else {
      if (this.readyHead < this.ready.length) return 0;
      for (const entry of this.delayed) next = Math.min(next, entry.visibleAt);
    }
    return next;
  }

  receive(max: number, now = Date.now()): QueueEntry[] {
    const batch = this.fifo ? this.receiveFifo(max, now) : this.receiveStandard(max, now);
    this.pending -= batch.length;
    if (batch.length > 0) this.inFlight++;
    for (const entry of batch) {
      entry.receives++;
      entry.record.attributes.ApproximateReceiveCount = String(entry.receives);
    }
    return batch;
  }

  private receiveStandard(max: number, now: number): QueueEntry[] {
    if (this.delayed.length > 0) {
      for (let i = this.delayed.length - 1; i >= 0; i--) {
        if (this.delayed[i].visibleAt <= now) {
          this.ready.push(this.delayed[i]);
          this.delayed.splice(i, 1);
        }
      }
    }
    const batch = this.ready.slice(this.readyHead, this.readyHead + max);
    this.readyHead += batch.length;
    if (this.readyHead > 4096 && this.readyHead * 2 > this.ready.length) {
      this.ready.splice(0, this.readyHead);
      this.readyHead = 0;
    }
    return batch;
  }

  /** Oldest available group first, as many of its records as fit, then the next group. */
  private receiveFifo(max: number, now: number): QueueEntry[] {
    const candidates = [...this.groups.entries()]
      .filter(
        ([groupId, group]) =>
          group.length > 0 && !this.inFlightGroups.has(groupId) && group[0].visibleAt <= now,
      )
      .sort((a, b) => a[1][0].seq - b[1][0].seq);
    const batch: QueueEntry[] = [];
    for (const [groupId, group] of candidates) {
      if (batch.length >= max) break;
      let taken = 0;
      while (taken < group.length && batch.length < max && group[taken].visibleAt <= now) {
        batch.push(group[taken]);
        taken++;
      }
      group.splice(0, taken);
      this.inFlightGroups.add(groupId);
    }
    return batch;
  }

  /** Ends an invocation: acknowledged entries leave, the others come back after `delayMs`. */
  settle(batch: readonly QueueEntry[], retry: ReadonlySet<string>, delayMs: number): void {
    this.inFlight--;
    const now = Date.now();
    for (const entry of batch) {
      if (this.fifo) this.inFlightGroups.delete(entry.groupId);
      if (retry.has(entry.record.messageId)) {
        entry.visibleAt = now + delayMs;
        this.add(entry);
      }
    }
  }
}
