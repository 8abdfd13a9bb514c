/**
 * The evidence archive, as both sides see it: the tag that makes a role an archive writer (the bucket
 * policy refuses puts from anyone else) and the object layout the consumers write and the tools read
 * (docs/architecture.md "Evidence archive").
 */

/** Role tag whose value is the stage: the archive bucket accepts puts only from roles carrying it. */
export const ARCHIVE_WRITER_TAG = 'billing-dedup:archive-writer';

/** Suffix of every archived object: gzip-compressed JSON Lines, one archived record a line. */
export const ARCHIVE_OBJECT_SUFFIX = '.jsonl.gz';

/**
 * Tag value of a role that may put only `oversize-` objects: the consumers with `archiveDelivery=spool`,
 * whose records normally reach the bucket through the archiver.
 */
export const archiveOversizeWriterTagValue = (stage: string): string => `${stage}:oversize`;

/** The keys a consumer writes in spool mode: a record too large for a spool message, `<partition>/oversize-<hash>`. */
export const ARCHIVE_OVERSIZE_KEYS = '*/oversize-*';
