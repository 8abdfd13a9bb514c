/**
 * The evidence archive, as both sides see it: the tag that makes a role an archive writer (the bucket
 * policy refuses puts from anyone else) and the object layout the consumers write and the tools read
 * (docs/architecture.md "Evidence archive").
 */

/** Role tag whose value is the stage: the archive bucket accepts puts only from roles carrying it. */
export const ARCHIVE_WRITER_TAG = 'billing-dedup:archive-writer';

/** Suffix of every archived object: gzip-compressed JSON Lines, one archived record a line. */
export const ARCHIVE_OBJECT_SUFFIX = '.jsonl.gz';
