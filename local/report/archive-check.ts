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
  /** The ledger rebuilt from the archive and the live export executions, compared with the live one. */
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

/** The verdict's rebuild check: the ledger rebuilt from the archive states every stream total as the live one. */
export const rebuildCheck = (rebuild: ArchiveRebuild): Check => ({
  name: 'archive rebuild',
  ok: rebuild.differences.length === 0,
  detail:
    rebuild.differences.length === 0
      ? `rebuild equals the live ledger: the ledger rebuilt from the archive states all ${rebuild.equal} account-currency statement totals (stream and export) exactly as the live one`
      : `the ledger rebuilt from the archive differs from the live one on ${rebuild.differences.length} of ${rebuild.equal + rebuild.differences.length} account-currency stream total(s): ` +
        rebuild.differences
          .map(
            (d) =>
              `${d.tenant}/${d.accountId}/${d.period} ${d.currency} live ${d.live.total} (${d.live.charges}) vs rebuilt ${d.rebuilt.total} (${d.rebuilt.charges})`,
          )
          .join('; '),
});
