/**
 * What changed in a Google Cloud billing export since the last pass: the change probe gives, per
 * ingestion partition (a day) and invoice month, the latest `export_time`; a (day, month) whose latest
 * export_time is after the stored watermark, or that has none, has new rows for that month. Pure.
 */
export interface ProbeRow {
  /** `YYYY-MM-DD` of `_PARTITIONTIME`. */
  partitionDay: string;
  /** `YYYYMM`. */
  invoiceMonth: string;
  /** UTC instant, fixed width (`…T…:…:…​.ffffffZ`): compares as text. */
  maxExportTime: string;
}

/** `<partition day>|<invoice month>` → latest export_time acquired. */
export type Watermarks = Record<string, string>;

export const watermarkKey = (row: Pick<ProbeRow, 'partitionDay' | 'invoiceMonth'>): string =>
  `${row.partitionDay}|${row.invoiceMonth}`;

/** The probe's watermarks of each invoice month (the month's acquisition moves these). */
export const observedByMonth = (rows: readonly ProbeRow[]): Map<string, Watermarks> => {
  const months = new Map<string, Watermarks>();
  for (const row of rows) {
    const marks = months.get(row.invoiceMonth) ?? {};
    const key = watermarkKey(row);
    if (marks[key] === undefined || marks[key] < row.maxExportTime) marks[key] = row.maxExportTime;
    months.set(row.invoiceMonth, marks);
  }
  return months;
};

/** True when every watermark of `observed` is at or before the one in `acquired`. */
export const covers = (acquired: Watermarks, observed: Watermarks): boolean =>
  Object.entries(observed).every(
    ([key, time]) => acquired[key] !== undefined && acquired[key] >= time,
  );

/** Invoice months (`YYYYMM`, oldest first) with rows after the stored watermarks. */
export const changedMonths = (
  observed: ReadonlyMap<string, Watermarks>,
  stored: Watermarks,
): string[] =>
  [...observed]
    .filter(([, marks]) => !covers(stored, marks))
    .map(([month]) => month)
    .sort();

/** Stored watermarks moved to `to` where it is later; keys of partitions before `oldestDay` dropped. */
export const mergeWatermarks = (
  stored: Watermarks,
  to: Watermarks,
  oldestDay: string,
): Watermarks => {
  const merged: Watermarks = {};
  for (const [key, time] of Object.entries({ ...stored }))
    if (key.slice(0, 10) >= oldestDay) merged[key] = time;
  for (const [key, time] of Object.entries(to))
    if (merged[key] === undefined || merged[key] < time) merged[key] = time;
  return merged;
};

/** Per invoice month (`YYYYMM`), the latest export_time acquired over its partitions. */
export const latestByMonth = (marks: Watermarks): Record<string, string> => {
  const latest: Record<string, string> = {};
  for (const [key, time] of Object.entries(marks)) {
    const month = key.slice(key.indexOf('|') + 1);
    if (latest[month] === undefined || latest[month] < time) latest[month] = time;
  }
  return Object.fromEntries(Object.entries(latest).sort(([a], [b]) => a.localeCompare(b)));
};
