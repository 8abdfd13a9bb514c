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
  /**
   * `new-versions` (default): each assembly in its own folder; `overwrite`: the CSV files directly in
   * the period folder; `athena`: Parquet under `<report>/<report>/year=YYYY/month=M/` (overwrite, with
   * the Athena integration's data-status object).
   */
  layout?: 'new-versions' | 'overwrite' | 'athena';
}

export interface LegacyCurDelivery {
  /** `<prefix>/<report>/<yyyymmdd-yyyymmdd>/<report>-Manifest.json` (overwritten by every assembly). */
  periodManifestKey: string;
  /** The same manifest in the assembly's folder (never overwritten). */
  assemblyManifestKey: string;
  dataFileKeys: string[];
  /** The Athena integration's data-status object of the report. */
  dataStatusKey: string;
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
  const dataFolder =
    spec.layout === 'athena'
      ? `${root}/${spec.report}/year=${year}/month=${month}`
      : spec.layout === 'overwrite'
        ? periodFolder
        : `${periodFolder}/${spec.assemblyId}`;
  const dataFileKeys = spec.fileNames.map((name) => `${dataFolder}/${name}`);
  const document = {
    assemblyId: spec.assemblyId,
    account: '123412340534',
    columns: spec.columns.map((column) => {
      const [category, name] = column.split('/');
      return { category, name, type: 'String' };
    }),
    charset: 'UTF-8',
    compression: spec.layout === 'athena' ? 'Parquet' : 'GZIP',
    contentType: spec.layout === 'athena' ? 'Parquet' : 'text/csv',
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
    dataStatusKey: `${root}/cost_and_usage_data_status/cost_and_usage_data_status.parquet`,
    assemblyManifestKey: `${periodFolder}/${spec.assemblyId}/${spec.report}-Manifest.json`,
    dataFileKeys,
    document,
    json: JSON.stringify(document),
  };
};
