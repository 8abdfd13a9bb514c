/**
 * The evidence behind a statement's charges: the archived cost messages of the tenant-period
 * (`core/archive-read.ts`), matched to each charge by its identity, with what happened to every copy.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { COST_STREAM } from '../../contract/streams';
import type { LedgerCharge } from '../../lambda/adapters/ledger-reader';
import { readArchivedRecords } from '../../lambda/adapters/s3-archive-reader';
import { chargeSortKey } from '../../lambda/adapters/table-layout';
import { archivePrefixOf } from '../../lambda/core/archive';
import { evidenceByCharge, messagesOf, type ChargeEvidence } from '../../lambda/core/archive-read';

export interface StatementEvidence {
  /** Where it was read: `s3://bucket/prefix`. */
  archive: string;
  records: number;
  /** Per charge (its sort key), the archived messages that booked it or tried to; [] when none. */
  charges: { sk: string; messages: ChargeEvidence[] }[];
}

/** Looks the statement's charges up in the archive of their tenant and (own) billing period. */
export const readStatementEvidence = async (
  s3: S3Client,
  bucket: string,
  query: { tenant: string; period: string },
  charges: readonly LedgerCharge[],
): Promise<StatementEvidence> => {
  const prefix = archivePrefixOf(COST_STREAM, query.tenant, query.period);
  const records = await readArchivedRecords(s3, bucket, prefix);
  const byDigest = evidenceByCharge(messagesOf(records), query.tenant);
  const bySortKey = new Map(
    [...byDigest].map(([digest, messages]) => [chargeSortKey({ digest }), messages]),
  );
  return {
    archive: `s3://${bucket}/${prefix}`,
    records: records.length,
    charges: charges.map((charge) => ({ sk: charge.sk, messages: bySortKey.get(charge.sk) ?? [] })),
  };
};
