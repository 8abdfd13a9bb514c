import { OUTCOMES, type Outcome } from './outcomes';
import type { ArchivedRecord } from './archive';
import { decodeRecord } from './envelope';
import type { DecodedRecord } from './events';
import { parseCostEvent } from './formats/cost';
import { costContentHash, costIdentity, type CostIdentity } from './keys';
import { ArchivedTenant } from './tenant-binding';

/**
 * Reading the evidence archive back (docs/architecture.md "Evidence archive"): its JSON Lines parsed and
 * checked, the copies of each message gathered, and the cost events of a tenant's period chosen for a
 * replay or a rebuild, once each, in a deterministic order.
 */

/** An archived line that is not a record the consumers write: names the object and the line. */
export class ArchiveFormatError extends Error {
  override name = 'ArchiveFormatError';
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const REQUIRED_TEXT = ['messageId', 'receivedAt', 'body'] as const;
const OPTIONAL_TEXT = ['eventSource', 'eventSourceARN', 'reason', 'code', 'hash'] as const;

const recordOf = (value: unknown): ArchivedRecord | string => {
  if (!isObject(value)) return 'not a JSON object';
  for (const field of REQUIRED_TEXT)
    if (typeof value[field] !== 'string' || value[field] === '')
      return `"${field}" must be a non-empty string`;
  for (const field of OPTIONAL_TEXT)
    if (value[field] !== undefined && typeof value[field] !== 'string')
      return `"${field}" must be a string`;
  if (!isObject(value.attributes)) return '"attributes" must be an object';
  if (!isObject(value.messageAttributes)) return '"messageAttributes" must be an object';
  if (!OUTCOMES.includes(value.outcome as Outcome))
    return `"outcome" ${JSON.stringify(value.outcome)} is not one of ${OUTCOMES.join(', ')}`;
  return value as unknown as ArchivedRecord;
};

/** The records of one archived object's text (already decompressed); a bad line throws, naming it. */
export const parseArchiveLines = (text: string, source: string): ArchivedRecord[] =>
  text.split('\n').flatMap((line, index) => {
    if (line.trim() === '') return [];
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new ArchiveFormatError(`${source} line ${index + 1}: not JSON`);
    }
    const record = recordOf(value);
    if (typeof record === 'string')
      throw new ArchiveFormatError(`${source} line ${index + 1}: ${record}`);
    return [record];
  });

/** One delivery of a message, as archived. */
export interface ArchivedCopy {
  receivedAt: string;
  outcome: Outcome;
  reason?: string;
  /** The content hash, once the consumer parsed it. */
  hash?: string;
}

/** A message and every archived copy of it (oldest first); `record` is its first copy as received. */
export interface ArchivedMessage {
  messageId: string;
  record: ArchivedRecord;
  copies: ArchivedCopy[];
}

const sentAt = (record: ArchivedRecord): number => {
  const sent = Number((record.attributes as { SentTimestamp?: unknown }).SentTimestamp);
  return Number.isFinite(sent) ? sent : Date.parse(record.receivedAt);
};

/** Send order, then message id: the same archive always gives the same order. */
const bySendOrder = (a: ArchivedMessage, b: ArchivedMessage): number =>
  sentAt(a.record) - sentAt(b.record) || (a.messageId < b.messageId ? -1 : 1);

/** Archived records gathered by message id, each message's copies in receive order, messages in send order. */
export const messagesOf = (records: readonly ArchivedRecord[]): ArchivedMessage[] => {
  const byId = new Map<string, ArchivedRecord[]>();
  for (const record of records)
    byId.set(record.messageId, [...(byId.get(record.messageId) ?? []), record]);
  return [...byId]
    .map(([messageId, copies]) => {
      const ordered = [...copies].sort((a, b) =>
        a.receivedAt < b.receivedAt ? -1 : a.receivedAt > b.receivedAt ? 1 : 0,
      );
      return {
        messageId,
        record: ordered[0],
        copies: ordered.map(({ receivedAt, outcome, reason, hash }) => ({
          receivedAt,
          outcome,
          ...(reason === undefined ? {} : { reason }),
          ...(hash === undefined ? {} : { hash }),
        })),
      };
    })
    .sort(bySendOrder);
};

/**
 * Outcomes that leave nothing to replay: `failed` copies were retried (a later copy says what happened),
 * `rejected` and `conflict` ones were dead-lettered and would be again.
 */
const NOT_BOOKED: ReadonlySet<Outcome> = new Set<Outcome>(['failed', 'rejected', 'conflict']);

export interface CostEventSelection {
  /** The messages to run again, once per charge content and version, in send order. */
  events: ArchivedMessage[];
  /** Other messages with the content and version of one already selected (a producer's retry). */
  sameContent: number;
  /** Messages no copy of which was booked (dead-lettered as poison, or only ever failed). */
  notBooked: number;
}

/** When the live consumer decided the message: the receive time of its first copy that did not fail. */
export const decidedAt = (message: ArchivedMessage): string =>
  (message.copies.find((copy) => copy.outcome !== 'failed') ?? message.copies[0]).receivedAt;

/**
 * The order the live consumer decided messages in (the first copy that did not fail), then send order:
 * of two messages with one content, the one decided first is the one the live ledger booked. Send
 * order alone cannot tell them apart when their producer's clock gave both the same SentTimestamp.
 */
const byLiveDecision = (a: ArchivedMessage, b: ArchivedMessage): number =>
  decidedAt(a) < decidedAt(b) ? -1 : decidedAt(a) > decidedAt(b) ? 1 : bySendOrder(a, b);

/**
 * The cost events of one archived tenant-period to replay: each message once, a second message with the
 * same content hash and the same version (the later decided one) left out, dead-lettered and never-decided messages left out and
 * counted. The content hash leaves the version out (core/keys.ts), so a line item restated back to an
 * earlier content (v1 10, v2 20, v3 10) has the hash of v1 on v3: the version keeps v3, which the live
 * ledger restated.
 */
export const selectCostEvents = (messages: readonly ArchivedMessage[]): CostEventSelection => {
  const seen = new Set<string>();
  const events: ArchivedMessage[] = [];
  let sameContent = 0;
  let notBooked = 0;
  for (const message of [...messages].sort(byLiveDecision)) {
    const decided = message.copies.filter((copy) => !NOT_BOOKED.has(copy.outcome));
    if (decided.length === 0) {
      notBooked += 1;
      continue;
    }
    const hash = decided.find((copy) => copy.hash)?.hash;
    const key =
      hash === undefined
        ? `message:${message.messageId}`
        : `${hash}#${costVersionOf(message.record) ?? 'unread'}`;
    if (seen.has(key)) {
      sameContent += 1;
      continue;
    }
    seen.add(key);
    events.push(message);
  }
  return { events: events.sort(bySendOrder), sameContent, notBooked };
};

/** A message as its producer published it: the body and the string message attributes. */
export interface PublishedForm {
  body: string;
  attributes: Record<string, string>;
}

const snsMessageOf = (body: string): string | undefined => {
  try {
    const value: unknown = JSON.parse(body);
    return isObject(value) && value.Type === 'Notification' && typeof value.Message === 'string'
      ? value.Message
      : undefined;
  } catch {
    return undefined;
  }
};

/** The archived record decoded as the consumer decoded it: the SNS envelope's message when it has one. */
const decodedOf = (record: ArchivedRecord): DecodedRecord =>
  decodeRecord(
    {
      body: record.body,
      messageAttributes: record.messageAttributes as Parameters<
        typeof decodeRecord
      >[0]['messageAttributes'],
    },
    snsMessageOf(record.body) === undefined ? 'raw' : 'envelope',
  );

/**
 * What was published, from what the queue received: with raw delivery the body and the record's
 * attributes; from a queue subscribed without it, the SNS envelope's message and attributes.
 */
export const publishedFormOf = (record: ArchivedRecord): PublishedForm => ({
  body: snsMessageOf(record.body) ?? record.body,
  attributes: decodedOf(record).attributes,
});

/**
 * The restatement version of an archived cost message as the cost parser reads it (0 for a charge
 * without one); undefined when it does not parse as a cost event.
 */
export const costVersionOf = (record: ArchivedRecord): number | undefined => {
  try {
    return parseCostEvent(decodedOf(record)).event.version ?? 0;
  } catch {
    return undefined;
  }
};

/** A live period close, to be repeated in a rebuild at the moment it happened. */
export interface LiveClose<Key> {
  key: Key;
  closedAt: string;
}

/** A live export execution's switch, to be repeated in a rebuild at the moment it happened. */
export interface LiveSwitch<Key> {
  key: Key;
  switchedAt: string;
}

export type RebuildStep<Key, ExportKey = never> =
  | { kind: 'book'; events: ArchivedMessage[] }
  | { kind: 'close'; key: Key }
  | { kind: 'export'; key: ExportKey };

type LiveAction<Key, ExportKey> = { at: string } & (
  { kind: 'close'; key: Key } | { kind: 'export'; key: ExportKey }
);

/**
 * A rebuild in the live order: events in the order the live consumer decided them, each live close and
 * each live export switch placed before the first event decided after it (an export and a close at the
 * same instant: the export first), so a charge that arrived after its period closed is booked by the
 * late-charge policy, and a stream charge after its provider's export is provisional, as they were live.
 * Runs of events are cut into batches of `batchSize`.
 */
export const rebuildSteps = <Key, ExportKey = never>(
  events: readonly ArchivedMessage[],
  closes: readonly LiveClose<Key>[],
  batchSize: number,
  switches: readonly LiveSwitch<ExportKey>[] = [],
): RebuildStep<Key, ExportKey>[] => {
  const ordered = [...events].sort((a, b) =>
    decidedAt(a) < decidedAt(b) ? -1 : decidedAt(a) > decidedAt(b) ? 1 : 0,
  );
  const pending: LiveAction<Key, ExportKey>[] = [
    ...switches.map((s) => ({ kind: 'export' as const, key: s.key, at: s.switchedAt })),
    ...closes.map((c) => ({ kind: 'close' as const, key: c.key, at: c.closedAt })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const steps: RebuildStep<Key, ExportKey>[] = [];
  let batch: ArchivedMessage[] = [];
  const flush = () => {
    if (batch.length > 0) steps.push({ kind: 'book', events: batch });
    batch = [];
  };
  const stepOf = ({ kind, key }: LiveAction<Key, ExportKey>): RebuildStep<Key, ExportKey> =>
    kind === 'close' ? { kind, key } : { kind, key };
  for (const event of ordered) {
    while (pending.length > 0 && pending[0].at < decidedAt(event)) {
      flush();
      steps.push(stepOf(pending.shift()!));
    }
    batch.push(event);
    if (batch.length >= batchSize) flush();
  }
  flush();
  steps.push(...pending.map(stepOf));
  return steps;
};

/**
 * The charge identity an archived cost message books, as the consumer derived it (the tenant bound to
 * the archive partition's, core/tenant-binding.ts `ArchivedTenant`); undefined when it does not parse.
 */
export const costIdentityOf = (
  record: ArchivedRecord,
  tenant: string,
): CostIdentity | undefined => {
  try {
    const decoded = decodedOf(record);
    const event = new ArchivedTenant(tenant).bind(parseCostEvent(decoded).event, decoded);
    return costIdentity(event, costContentHash(event));
  } catch {
    return undefined;
  }
};

/** One archived message behind a charge: its version and what happened to each copy. */
export interface ChargeEvidence {
  messageId: string;
  /** The message's restatement version (0 for a charge without versions). */
  version: number;
  /** When its producer sent it (SentTimestamp, ISO). */
  sentAt: string;
  copies: ArchivedCopy[];
}

/**
 * The archived messages of a tenant-period grouped by the charge they book (identity digest, the key
 * of the ledger's charge item), each charge's messages in the order the live consumer decided them.
 */
export const evidenceByCharge = (
  messages: readonly ArchivedMessage[],
  tenant: string,
): Map<string, ChargeEvidence[]> => {
  const byDigest = new Map<string, ChargeEvidence[]>();
  for (const message of [...messages].sort(byLiveDecision)) {
    const identity = costIdentityOf(message.record, tenant);
    if (!identity) continue;
    byDigest.set(identity.digest, [
      ...(byDigest.get(identity.digest) ?? []),
      {
        messageId: message.messageId,
        version: identity.version,
        sentAt: new Date(sentAt(message.record)).toISOString(),
        copies: message.copies,
      },
    ]);
  }
  return byDigest;
};
