/**
 * A delivered manifest in either layout we read, told apart by its key: the legacy Cost and Usage
 * Report's period folder (`<report>/<yyyymmdd-yyyymmdd>/`, `legacy-cur-manifest.ts`) or AWS Data
 * Exports' `metadata/BILLING_PERIOD=YYYY-MM/` (`manifest.ts`, which also names both layouts when a
 * key is in neither).
 */
import { isLegacyCurManifestKey, parseLegacyCurManifest } from './legacy-cur-manifest';
import { parseManifest, parseS3Uri, type ExportManifest } from './manifest';

export const parseDeliveredManifest = (json: unknown, manifestUri: string): ExportManifest =>
  isLegacyCurManifestKey(parseS3Uri(manifestUri, 'manifestKey').key)
    ? parseLegacyCurManifest(json, manifestUri)
    : parseManifest(json, manifestUri);
