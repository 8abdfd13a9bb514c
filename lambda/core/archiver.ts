import { ARCHIVE_OBJECT_SUFFIX } from '../../contract/archive';
import { messageIdsHash, type ArchivedRecord, type ArchiveObject } from './archive';
import { decodeSpoolMessage, SpoolMessageError } from './archive-spool';
import type { BatchOutcome } from './batch';
import type { RecordResult } from './outcomes';

/** A spool message as the archiver receives it. */
export interface SpoolMessage {
  messageId: string;
  body: string;
}

/** An object the archiver writes, with the spool messages whose lines it holds. */
export interface SpooledObject extends ArchiveObject {
  sources: string[];
}

export interface ArchiverPlan {
  objects: SpooledObject[];
  poison: { message: SpoolMessage; reason: string }[];
}

/**
 * One object per partition of the whole batch, at `<partition>/spool-<hash of the ids of the spool
 * messages it holds lines of>`. Messages are taken in message-id order and their lines in order, so the
 * same spool batch, however Lambda orders it, gives the same keys with the same contents: a redelivered
 * batch writes what is there already.
 */
export const planArchiverBatch = (messages: readonly SpoolMessage[]): ArchiverPlan => {
  const partitions = new Map<string, { records: ArchivedRecord[]; sources: Set<string> }>();
  const poison: ArchiverPlan['poison'] = [];
  const ordered = [...messages].sort((a, b) =>
    a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0,
  );
  for (const message of ordered) {
    let lines;
    try {
      lines = decodeSpoolMessage(message.body);
    } catch (error) {
      if (!(error instanceof SpoolMessageError)) throw error;
      poison.push({ message, reason: error.message });
      continue;
    }
    for (const { partition, record } of lines) {
      const entry = partitions.get(partition) ?? { records: [], sources: new Set<string>() };
      entry.records.push(record);
      entry.sources.add(message.messageId);
      partitions.set(partition, entry);
    }
  }
  const objects = [...partitions].map(([partition, { records, sources }]) => ({
    key: `${partition}/spool-${messageIdsHash([...sources])}${ARCHIVE_OBJECT_SUFFIX}`,
    partition,
    records,
    sources: [...sources],
  }));
  return { objects, poison };
};

export interface ArchiverPorts {
  /** Stores one object whole at its key (S3 PutObject). */
  put(object: ArchiveObject): Promise<void>;
  /** Sends a poison spool message to the spool's DLQ with the reason. */
  deadLetter(message: SpoolMessage, reason: string): Promise<void>;
}

const failedWith = (error: unknown): string =>
  `archive write failed: ${error instanceof Error ? error.name : 'unknown-error'}`;

/**
 * Writes a spool batch: every object put (in parallel), every poison message dead-lettered. A spool
 * message is acknowledged only once every object holding its lines is stored; otherwise it is
 * reported failed and comes back (with the others of its partitions, under other keys, or alone).
 */
export const archiveSpoolBatch = async (
  messages: readonly SpoolMessage[],
  ports: ArchiverPorts,
): Promise<BatchOutcome & { objects: number; records: number }> => {
  const plan = planArchiverBatch(messages);
  const failed = new Map<string, string>();
  const puts = await Promise.allSettled(plan.objects.map((object) => ports.put(object)));
  puts.forEach((put, index) => {
    if (put.status === 'rejected')
      for (const source of plan.objects[index].sources) failed.set(source, failedWith(put.reason));
  });
  const rejected = new Map<string, string>();
  await Promise.all(
    plan.poison.map(async ({ message, reason }) => {
      try {
        await ports.deadLetter(message, reason);
        rejected.set(message.messageId, reason);
      } catch (error) {
        failed.set(message.messageId, `dead-letter failed: ${(error as Error).name}`);
      }
    }),
  );
  const results = messages.map((message): RecordResult => {
    const failure = failed.get(message.messageId);
    if (failure !== undefined)
      return { messageId: message.messageId, outcome: 'failed', reason: failure };
    const reason = rejected.get(message.messageId);
    return reason !== undefined
      ? { messageId: message.messageId, outcome: 'rejected', code: 'malformed-body', reason }
      : { messageId: message.messageId, outcome: 'observed' };
  });
  return {
    results,
    batchItemFailures: results
      .filter((result) => result.outcome === 'failed')
      .map((result) => ({ itemIdentifier: result.messageId })),
    objects: plan.objects.length,
    records: plan.objects.reduce((sum, object) => sum + object.records.length, 0),
  };
};
