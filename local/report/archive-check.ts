/**
 * The evidence archive as the local run left it: how many objects and records the consumers wrote
 * into the local S3, and which acknowledged messages it lacks (the verdict wants none).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { archivedKeys, readArchivedObject } from '../../lambda/adapters/s3-archive-reader';
import type { ArchiveRebuild } from './archive-rebuild';
import type { Check } from './run-report';

export interface ArchiveReport {
  objects: number;
  records: number;
  /** Messages a queue acknowledged (deleted) that no archived record holds. */
  missing: number;
  /** The ledger rebuilt from the archive, compared with the live one (stream charges only). */
  rebuild?: ArchiveRebuild;
}

/** Reads every archived object and compares its records with the messages the queues acknowledged. */
export const readArchiveReport = async (
  s3: S3Client,
  bucket: string,
  acknowledged: ReadonlySet<string>,
): Promise<ArchiveReport> => {
  const keys = await archivedKeys(s3, bucket);
  const archivedIds = new Set<string>();
  let records = 0;
  for (const key of keys) {
    for (const record of await readArchivedObject(s3, bucket, key)) {
      records++;
      if (record.outcome !== 'failed') archivedIds.add(record.messageId);
    }
  }
  const missing = [...acknowledged].filter((id) => !archivedIds.has(id)).length;
  return { objects: keys.length, records, missing };
};

export const archiveCheck = (archive: ArchiveReport, acknowledged: number): Check => ({
  name: 'archive',
  ok: archive.missing === 0 && (acknowledged === 0 || archive.records > 0),
  detail:
    archive.missing === 0
      ? `every one of the ${acknowledged} acknowledged messages archived with its outcome (${archive.records} records in ${archive.objects} objects)`
      : `${archive.missing} of ${acknowledged} acknowledged message(s) missing from the archive`,
});
