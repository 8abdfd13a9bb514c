/** A legacy CUR delivery as AWS writes it ("create new report versions"): keys and manifest JSON. */
export interface LegacyCurSpec {
  bucket: string;
  /** '' for none. */
  prefix: string;
  report: string;
  /** YYYY-MM. */
  period: string;
  assemblyId: string;
  /** `category/name` column names (the CSV header). */
  columns: readonly string[];
  fileNames: readonly string[];
}

export interface LegacyCurDelivery {
  /** `<prefix>/<report>/<yyyymmdd-yyyymmdd>/<report>-Manifest.json` (overwritten by every assembly). */
  periodManifestKey: string;
  /** The same manifest in the assembly's folder (never overwritten). */
  assemblyManifestKey: string;
  dataFileKeys: string[];
  document: Record<string, unknown>;
  json: string;
}

const compact = (date: Date): string => date.toISOString().slice(0, 10).replace(/-/g, '');

export const legacyCurDelivery = (spec: LegacyCurSpec): LegacyCurDelivery => {
  const [year, month] = spec.period.split('-').map(Number);
  const start = new Date(Date.UTC(year, month - 1, 1));
  const end = new Date(Date.UTC(year, month, 1));
  const root = spec.prefix === '' ? spec.report : `${spec.prefix}/${spec.report}`;
  const periodFolder = `${root}/${compact(start)}-${compact(end)}`;
  const dataFileKeys = spec.fileNames.map((name) => `${periodFolder}/${spec.assemblyId}/${name}`);
  const document = {
    assemblyId: spec.assemblyId,
    account: '123412340534',
    columns: spec.columns.map((column) => {
      const [category, name] = column.split('/');
      return { category, name, type: 'String' };
    }),
    charset: 'UTF-8',
    compression: 'GZIP',
    contentType: 'text/csv',
    reportId: `report-id-${spec.report}`,
    reportName: spec.report,
    billingPeriod: {
      start: `${compact(start)}T000000.000Z`,
      end: `${compact(end)}T000000.000Z`,
    },
    bucket: spec.bucket,
    reportKeys: dataFileKeys,
    additionalArtifactKeys: [],
  };
  return {
    periodManifestKey: `${periodFolder}/${spec.report}-Manifest.json`,
    assemblyManifestKey: `${periodFolder}/${spec.assemblyId}/${spec.report}-Manifest.json`,
    dataFileKeys,
    document,
    json: JSON.stringify(document),
  };
};
