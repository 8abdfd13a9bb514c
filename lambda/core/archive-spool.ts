import { gunzipSync, gzipSync } from 'node:zlib';
import { ARCHIVE_OBJECT_SUFFIX } from '../../contract/archive';
import { OUTCOMES } from '../../contract/outcomes';
import { messageIdsHash, type ArchivedRecord, type ArchiveObject } from './archive';

/**
 * The archive spool (docs/architecture.md "Evidence archive"): a consumer sends its invocation's
 * archive records as SQS messages to the `archive-spool` queue instead of putting one S3 object per
 * partition; the archiver function gathers many such messages per invocation and writes one object per
 * partition. A spool message body is base64 of gzip-compressed JSON Lines, one `SpoolLine` a line.
 */

/**
 * The size a spool message may have: SQS's classic limit of 256 KiB (262,144 bytes, body and
 * attributes together). SQS accepts up to 1 MiB since 2025 on queues configured for it; the spool queue
 * is created with `MaximumMessageSize` 262,144 and the encoder keeps to it, so a queue, a DLQ or an
 * emulator that still has the classic limit accepts every message. Spool messages carry no attributes.
 */
export const SPOOL_MESSAGE_MAX_BYTES = 256 * 1024;

/** The most bytes one spool message may inflate to when read back (a gzip bomb is poison, not memory). */
export const SPOOL_MESSAGE_MAX_INFLATED_BYTES = 32 * 1024 * 1024;

/** One archived record and the partition (`<stream>/tenant=…/period=…/day=…`) it is filed under. */
export interface SpoolLine {
  partition: string;
  record: ArchivedRecord;
}

export interface SpoolEncoding {
  /** Message bodies, each at most the size limit, together holding every record that fits one. */
  messages: string[];
  /**
   * Records too large for a spool message even alone: put directly as objects of their own partition,
   * named `oversize-<hash>` (the only keys a consumer may write in spool mode).
   */
  oversize: ArchiveObject[];
}

const encodeLines = (lines: readonly SpoolLine[]): string =>
  gzipSync(lines.map((line) => `${JSON.stringify(line)}\n`).join('')).toString('base64');

/** Lines packed into as few messages as halving finds: all in one, else each half on its own, down to one line. */
const pack = (
  lines: readonly SpoolLine[],
  maxBytes: number,
  messages: string[],
  oversize: SpoolLine[],
): void => {
  const encoded = encodeLines(lines);
  if (encoded.length <= maxBytes) {
    messages.push(encoded);
    return;
  }
  if (lines.length === 1) {
    oversize.push(lines[0]);
    return;
  }
  const half = Math.ceil(lines.length / 2);
  pack(lines.slice(0, half), maxBytes, messages, oversize);
  pack(lines.slice(half), maxBytes, messages, oversize);
};

/** Objects of the oversize records, one per partition, at `<partition>/oversize-<hash of its message ids>`. */
const oversizeObjects = (lines: readonly SpoolLine[]): ArchiveObject[] => {
  const partitions = new Map<string, ArchivedRecord[]>();
  for (const { partition, record } of lines)
    partitions.set(partition, [...(partitions.get(partition) ?? []), record]);
  return [...partitions].map(([partition, records]) => ({
    key: `${partition}/oversize-${messageIdsHash(records.map((r) => r.messageId))}${ARCHIVE_OBJECT_SUFFIX}`,
    partition,
    records,
  }));
};

/**
 * An invocation's archive objects as spool messages: usually one; more when the batch does not fit
 * `maxBytes` (base64 length, which is its byte length); a record that alone does not fit is returned in
 * `oversize` for the direct put.
 */
export const encodeSpoolMessages = (
  objects: readonly ArchiveObject[],
  maxBytes = SPOOL_MESSAGE_MAX_BYTES,
): SpoolEncoding => {
  const lines = objects.flatMap((object) =>
    object.records.map((record) => ({ partition: object.partition, record })),
  );
  const messages: string[] = [];
  const oversize: SpoolLine[] = [];
  if (lines.length > 0) pack(lines, maxBytes, messages, oversize);
  return { messages, oversize: oversizeObjects(oversize) };
};

/** A spool message the archiver cannot read: it goes to the spool's DLQ with this reason. */
export class SpoolMessageError extends Error {
  override readonly name = 'SpoolMessageError';
}

const PARTITION =
  /^[A-Za-z0-9.-]+\/tenant=[A-Za-z0-9._-]+\/period=[A-Za-z0-9._-]+\/day=\d{4}-\d{2}-\d{2}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const OUTCOME_NAMES = new Set<string>(OUTCOMES);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isRecord = (value: unknown): value is ArchivedRecord =>
  isObject(value) &&
  typeof value.messageId === 'string' &&
  value.messageId !== '' &&
  typeof value.receivedAt === 'string' &&
  typeof value.body === 'string' &&
  typeof value.outcome === 'string' &&
  OUTCOME_NAMES.has(value.outcome) &&
  isObject(value.attributes) &&
  isObject(value.messageAttributes);

const parseLine = (text: string, index: number): SpoolLine => {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch {
    throw new SpoolMessageError(`line ${index + 1} is not JSON`);
  }
  if (!isObject(line) || typeof line.partition !== 'string' || !PARTITION.test(line.partition))
    throw new SpoolMessageError(`line ${index + 1} has no valid partition`);
  if (!isRecord(line.record))
    throw new SpoolMessageError(`line ${index + 1} holds no archived record`);
  return { partition: line.partition, record: line.record };
};

/** A spool message's lines; anything else (not base64, not gzip, too large inflated, a bad line) throws `SpoolMessageError`. */
export const decodeSpoolMessage = (body: string): SpoolLine[] => {
  if (body === '' || !BASE64.test(body))
    throw new SpoolMessageError(
      'the body is not base64 (a spool message is base64 gzip JSON Lines)',
    );
  let text: string;
  try {
    text = gunzipSync(Buffer.from(body, 'base64'), {
      maxOutputLength: SPOOL_MESSAGE_MAX_INFLATED_BYTES,
    }).toString('utf8');
  } catch (error) {
    throw new SpoolMessageError(
      (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
        ? `the body inflates beyond ${SPOOL_MESSAGE_MAX_INFLATED_BYTES} bytes`
        : 'the body is not gzip data',
    );
  }
  const lines = text.split('\n').filter((line) => line !== '');
  if (lines.length === 0) throw new SpoolMessageError('the message holds no line');
  return lines.map(parseLine);
};
