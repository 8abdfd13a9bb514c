/**
 * What every acquisition writes into our export bucket, and its last step: the planner-ready manifest,
 * written once, after every data file (a second identical write would be a second delivery of the
 * execution). Without its manifest a partly written execution is invisible to the planner.
 */
import type { BuiltManifest } from '../exports/manifest';

/** Our export bucket as an acquisition's target. */
export interface AcquisitionBucketPort {
  /** Undefined when there is no such object. */
  readText(key: string): Promise<string | undefined>;
  putText(key: string, text: string, contentType?: string): Promise<void>;
}

/** Writes the manifest unless the same text is already there; true when it wrote. */
export const writeManifestLast = async (
  bucket: AcquisitionBucketPort,
  manifest: Pick<BuiltManifest, 'manifestKey' | 'json'>,
): Promise<boolean> => {
  if ((await bucket.readText(manifest.manifestKey)) === manifest.json) return false;
  await bucket.putText(manifest.manifestKey, manifest.json, 'application/json');
  return true;
};
