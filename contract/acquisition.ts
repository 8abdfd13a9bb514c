/**
 * What every acquisition (Azure exports, the Google Cloud billing export) shares across lib/ and the
 * functions: the partition key of a source's cursor items in the ledger table, and the event a
 * schedule or `billing-dedup acquire run` sends (one pass over every source of the tenant).
 */
export type AcquisitionProvider = 'azure' | 'gcp';

/** The partition key of a source's cursor items (the IAM LeadingKeys condition names these). */
export const acquisitionCursorPk = (provider: AcquisitionProvider, sourceId: string): string =>
  `ACQUIRE#${provider}#${sourceId}`;

export interface AcquisitionEvent {
  tenant: string;
}
