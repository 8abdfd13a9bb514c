import { createHash } from 'node:crypto';
import { ARCHIVE_OBJECT_SUFFIX } from '../../contract/archive';
import type { BatchOutcome } from './batch';
import type { Outcome, RecordResult } from './outcomes';

/** An SQS record as Lambda delivers it, as far as the archive keeps it (matches aws-lambda's SQSRecord). */
export interface ReceivedRecord {
  messageId: string;
  body: string;
  /** SQS system attributes, kept whole; SentTimestamp dates the record. */
  attributes?: { SentTimestamp?: string };
  messageAttributes?: object;
  eventSource?: string;
  eventSourceARN?: string;
}

/** One line of an archived object: the record exactly as received, and what the consumer did with it. */
export interface ArchivedRecord {
  messageId: string;
  receivedAt: string;
  eventSource?: string;
  eventSourceARN?: string;
  attributes: object;
  messageAttributes: object;
  body: string;
  outcome: Outcome;
  /** Rejection reason, conflict detail or the transient error's name. */
  reason?: string;
  code?: string;
  /** Content hash or alert key, when the record got that far. */
  hash?: string;
}

export interface ArchiveObject {
  key: string;
  /** `<stream>/tenant=…/period=…/day=…`: the key without its file name. */
  partition: string;
  records: ArchivedRecord[];
}

/** Where the archive files a record whose tenant and period are unknown (it did not parse, or never got that far). */
export const UNSCOPED = '_unscoped';

/** A key segment: anything but letters, digits, `-` and `.` becomes `_` (tenants and periods are slugs already). */
const segment = (text: string): string => text.replace(/[^A-Za-z0-9.-]/g, '_') || UNSCOPED;

/**
 * The UTC day a record was first sent (SentTimestamp, unchanged by redelivery); the receive time only if
 * the record has none.
 */
const dayOf = (record: ReceivedRecord, receivedAt: Date): string => {
  const sent = Number(record.attributes?.SentTimestamp);
  return (Number.isFinite(sent) && sent > 0 ? new Date(sent) : receivedAt)
    .toISOString()
    .slice(0, 10);
};

/** The key prefix of a stream's records of one tenant and period (ends with `/`). */
export const archivePrefixOf = (stream: string, tenant: string, period: string): string =>
  `${segment(stream)}/tenant=${segment(tenant)}/period=${segment(period)}/`;

const partitionOf = (
  stream: string,
  record: ReceivedRecord,
  result: RecordResult | undefined,
  receivedAt: Date,
): string =>
  `${archivePrefixOf(stream, result?.evidence?.tenant ?? UNSCOPED, result?.evidence?.period ?? UNSCOPED)}day=${dayOf(record, receivedAt)}`;

/** The same message ids, in any order, name the same object: a redelivered batch overwrites its copy. */
export const messageIdsHash = (messageIds: readonly string[]): string =>
  createHash('sha256')
    .update([...messageIds].sort().join('\n'))
    .digest('hex')
    .slice(0, 32);

const archivedRecord = (
  record: ReceivedRecord,
  result: RecordResult | undefined,
  receivedAt: Date,
): ArchivedRecord => ({
  messageId: record.messageId,
  receivedAt: receivedAt.toISOString(),
  ...(record.eventSource === undefined ? {} : { eventSource: record.eventSource }),
  ...(record.eventSourceARN === undefined ? {} : { eventSourceARN: record.eventSourceARN }),
  attributes: record.attributes ?? {},
  messageAttributes: record.messageAttributes ?? {},
  body: record.body,
  // A record the batch has no result for was not processed: it is retried like a failed one.
  outcome: result?.outcome ?? 'failed',
  ...(result?.reason === undefined ? {} : { reason: result.reason }),
  ...(result?.code === undefined ? {} : { code: result.code }),
  ...(result?.hash === undefined ? {} : { hash: result.hash }),
});

/**
 * The objects one invocation archives: its records grouped by stream, tenant, period and day (one object
 * for the usual batch of one tenant), each at `<stream>/tenant=…/period=…/day=…/<hash of its message ids>`.
 */
export const archiveObjectsOf = (
  stream: string,
  records: readonly ReceivedRecord[],
  results: readonly RecordResult[],
  receivedAt: Date,
): ArchiveObject[] => {
  const resultOf = new Map(results.map((result) => [result.messageId, result]));
  const partitions = new Map<string, ArchivedRecord[]>();
  for (const record of records) {
    const result = resultOf.get(record.messageId);
    const partition = partitionOf(stream, record, result, receivedAt);
    partitions.set(partition, [
      ...(partitions.get(partition) ?? []),
      archivedRecord(record, result, receivedAt),
    ]);
  }
  return [...partitions].map(([partition, archived]) => ({
    key: `${partition}/${messageIdsHash(archived.map((record) => record.messageId))}${ARCHIVE_OBJECT_SUFFIX}`,
    partition,
    records: archived,
  }));
};

/** Writes an invocation's archive objects (the S3 adapter); resolves once every one is stored. */
export interface ArchivePort {
  put(objects: readonly ArchiveObject[]): Promise<void>;
}

/**
 * Archives the batch after its outcomes are decided and before any record is acknowledged. If the
 * archive cannot be written, every record is reported failed: all are redelivered (the ledger and the
 * DLQ forwarding are idempotent), so no acknowledged record is ever missing from the archive.
 */
export const archiveBeforeAcknowledging = async (
  archive: ArchivePort,
  stream: string,
  records: readonly ReceivedRecord[],
  outcome: BatchOutcome,
  receivedAt: Date,
): Promise<BatchOutcome> => {
  try {
    await archive.put(archiveObjectsOf(stream, records, outcome.results, receivedAt));
    return outcome;
  } catch (error) {
    const reason = `archive write failed: ${error instanceof Error ? error.name : 'unknown-error'}`;
    if (records.some((record) => typeof record.messageId !== 'string' || record.messageId === ''))
      throw new Error(`${reason}; a record has no usable messageId, retrying the whole batch`);
    return {
      results: records.map((record) => ({
        messageId: record.messageId,
        outcome: 'failed',
        reason,
      })),
      batchItemFailures: records.map((record) => ({ itemIdentifier: record.messageId })),
    };
  }
};
