/**
 * An S3 event notification (as S3 publishes it to SNS) → the objects it reports created. S3 sends an
 * `s3:TestEvent` when notifications are configured: it reports nothing. Object keys arrive URL-encoded
 * with `+` for a space.
 */
import { fail } from '../errors';
import { isObject } from '../formats/fields';

export interface ObjectCreated {
  bucket: string;
  key: string;
  /** ISO-8601. */
  eventTime: string;
  /** Hex; orders the events of one key. */
  sequencer: string;
  /** The version the event reports created (versioned buckets): the one the planner reads. */
  versionId?: string;
}

const text = (value: unknown, field: string): string =>
  typeof value === 'string' && value !== ''
    ? value
    : fail('missing-field', field, 'required in an S3 event notification');

/** `a+b%2Fc` → `a b/c`; a malformed escape is refused rather than guessed. */
export const decodeS3Key = (encoded: string): string => {
  try {
    return decodeURIComponent(encoded.replace(/\+/g, ' '));
  } catch {
    return fail(
      'invalid-field',
      's3.object.key',
      `not a URL-encoded key: ${encoded.slice(0, 200)}`,
    );
  }
};

const isTestEvent = (message: Record<string, unknown>): boolean =>
  message.Event === 's3:TestEvent' && message.Records === undefined;

export const objectsCreatedOf = (message: unknown): ObjectCreated[] => {
  if (!isObject(message)) {
    return fail('malformed-body', '$', 'not an S3 event notification (a JSON object)');
  }
  if (isTestEvent(message)) return [];
  if (!Array.isArray(message.Records)) {
    return fail('missing-field', 'Records', 'not an S3 event notification');
  }
  return message.Records.flatMap((record: unknown, index): ObjectCreated[] => {
    const at = `Records[${index}]`;
    if (!isObject(record) || !isObject(record.s3))
      return fail('missing-field', `${at}.s3`, 'required');
    const eventName = text(record.eventName, `${at}.eventName`);
    if (!eventName.startsWith('ObjectCreated:')) return [];
    const { bucket, object } = record.s3;
    if (!isObject(bucket) || !isObject(object)) {
      return fail('missing-field', `${at}.s3.object`, 'bucket and object are required');
    }
    return [
      {
        bucket: text(bucket.name, `${at}.s3.bucket.name`),
        key: decodeS3Key(text(object.key, `${at}.s3.object.key`)),
        eventTime: text(record.eventTime, `${at}.eventTime`),
        sequencer: text(object.sequencer, `${at}.s3.object.sequencer`),
        ...(typeof object.versionId === 'string' && object.versionId !== ''
          ? { versionId: object.versionId }
          : {}),
      },
    ];
  });
};
