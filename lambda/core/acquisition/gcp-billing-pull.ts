/**
 * One pass of the Google Cloud billing acquisition over ports (docs/gcp-acquisition.md):
 *
 * 1. the change probe (`gcp-billing-sql.ts`) → the invoice months with rows after the watermarks;
 * 2. each such month, oldest first, as a new export execution: a query job with an id we choose
 *    (saved in the month's cursor before it is inserted, so a repeated insert is the same job), its
 *    results paged through (`pageToken`, `maxResults`), each page written as one FOCUS CSV file, the
 *    cursor `{jobId, location, pageToken, pagesDone}` saved after each file, the planner manifest last,
 *    then the month's watermarks moved to what the probe saw.
 *
 * A pass stopped anywhere resumes from the cursor: a page is fetched again with the same token and
 * rewritten with the same content, so every row lands once; without its manifest a partly written
 * execution is invisible to the planner. Query results live about 24 hours: a cursor older than
 * `resultsTtlMs`, or a job whose results or page token are gone, starts the month again as a new job
 * (a new execution; the old pages, without a manifest, are never read).
 */
import { addDecimals } from '../decimal';
import { manifestFor } from '../exports/manifest';
import { changeProbeSql, invoiceMonthOf, monthSql, periodOfInvoiceMonth } from './gcp-billing-sql';
import { FOCUS_FILE_COLUMNS, pageCsv, type BigQueryRow } from './gcp-billing-rows';
import {
  changedMonths,
  covers,
  mergeWatermarks,
  observedByMonth,
  type ProbeRow,
  type Watermarks,
} from './gcp-watermarks';
import { writeManifestLast, type AcquisitionBucketPort } from './manifest-last';

export interface JobRef {
  jobId: string;
  location: string;
}

export interface ResultsPage {
  rows: BigQueryRow[];
  /** Absent on the last page. */
  pageToken?: string;
  totalRows?: number;
  /** The job's bytes billed (on-demand), when the answer states them. */
  bytesBilled?: number;
}

/** The job's results (or the page token) are no longer there: run the query again. */
export class ResultsGoneError extends Error {
  override name = 'ResultsGoneError';
}

export interface BigQueryPort {
  /** Runs a small query to completion; every row of its result. */
  queryAll(sql: string, location: string): Promise<{ rows: BigQueryRow[]; bytesBilled: number }>;
  /** Inserts a query job with our id; a job that already has this id is that job (not an error). */
  insertJob(job: JobRef, sql: string): Promise<void>;
  /** One page of a finished job's results (waits for the job); `ResultsGoneError` when expired. */
  page(job: JobRef, pageToken: string | undefined, maxResults: number): Promise<ResultsPage>;
}

export interface MonthCursor extends JobRef {
  /** `YYYY-MM`: the invoice month. */
  period: string;
  /** Epoch ms the job's id was chosen (its results expire about 24 h after). */
  startedAtMs: number;
  inserted: boolean;
  /** Next page to read; absent before the first page and after the last. */
  pageToken?: string;
  pagesDone: number;
  rows: number;
  bytesBilled: number;
  done: boolean;
  /** The probe's watermarks of the month when this job was chosen: acquired once done. */
  targets: Watermarks;
}

export interface GcpCursorPort {
  readWatermarks(): Promise<Watermarks>;
  writeWatermarks(marks: Watermarks): Promise<void>;
  readMonth(period: string): Promise<MonthCursor | undefined>;
  writeMonth(cursor: MonthCursor): Promise<void>;
}

export interface GcpBillingSpec {
  table: string;
  location: string;
  bucket: string;
  /** The tenant's `exportSources` prefix, without trailing `/`. */
  prefix: string;
  exportName: string;
}

export interface PullOptions {
  keepGoing?: () => boolean;
  /** Only this invoice month (`YYYY-MM`), if it changed; the other months wait for the next pass. */
  period?: string;
  now?: () => number;
  /** Rows per page (getQueryResults `maxResults`; default 10,000). */
  pageRows?: number;
  /** Days the change probe looks back (default 35). */
  trailingDays?: number;
  /** A cursor older than this starts the month again (default 23 h: results are cached ~24 h). */
  resultsTtlMs?: number;
  /** Unique suffix of a new job id (default: random). */
  nonce?: () => string;
}

export interface MonthReport {
  period: string;
  executionId: string;
  pages: number;
  rows: number;
  /** Rows whose amount had more than 18 fraction digits (rounded half-even). */
  rounded: number;
  restarts: number;
  bytesBilled: number;
  manifestWritten: boolean;
  /** Sum of BilledCost per currency of the pages read in this pass. */
  totals: Record<string, string>;
}

export interface PullReport {
  changed: string[];
  months: MonthReport[];
  probeBytesBilled: number;
  leftForNextPass: number;
}

const DAY_MS = 86_400_000;
const randomNonce = (): string => Math.random().toString(36).slice(2, 10);

export const dataFileName = (index: number): string => `page-${String(index).padStart(6, '0')}.csv`;

const textCell = (row: BigQueryRow, index: number): string => {
  const value = row.f[index]?.v;
  return typeof value === 'string' ? value : '';
};

const probeRows = (rows: readonly BigQueryRow[]): ProbeRow[] =>
  rows.map((row) => ({
    partitionDay: textCell(row, 0),
    invoiceMonth: textCell(row, 1),
    maxExportTime: textCell(row, 2),
  }));

const addTotals = (into: Record<string, string>, from: Map<string, string>): void => {
  for (const [currency, amount] of from)
    into[currency] = addDecimals(into[currency] ?? '0', amount);
};

export const pullGcpBilling = async (
  spec: GcpBillingSpec,
  ports: { bigquery: BigQueryPort; bucket: AcquisitionBucketPort; cursor: GcpCursorPort },
  options: PullOptions = {},
): Promise<PullReport> => {
  const now = options.now ?? Date.now;
  const keepGoing = options.keepGoing ?? (() => true);
  const trailingDays = options.trailingDays ?? 35;
  const ttl = options.resultsTtlMs ?? 23 * 3_600_000;
  const pageRows = options.pageRows ?? 10_000;
  const nonce = options.nonce ?? randomNonce;
  const stored = await ports.cursor.readWatermarks();
  const probe = await ports.bigquery.queryAll(
    changeProbeSql(spec.table, trailingDays),
    spec.location,
  );
  const observed = observedByMonth(probeRows(probe.rows));
  const changed = changedMonths(observed, stored).filter(
    (month) => options.period === undefined || month === invoiceMonthOf(options.period),
  );
  const report: PullReport = {
    changed,
    months: [],
    probeBytesBilled: probe.bytesBilled,
    leftForNextPass: 0,
  };
  const oldestDay = new Date(now() - (trailingDays + 2) * DAY_MS).toISOString().slice(0, 10);

  const newCursor = (period: string, targets: Watermarks): MonthCursor => ({
    jobId: `billing_dedup_${invoiceMonthOf(period)}_${now().toString(36)}_${nonce()}`,
    location: spec.location,
    period,
    startedAtMs: now(),
    inserted: false,
    pagesDone: 0,
    rows: 0,
    bytesBilled: 0,
    done: false,
    targets,
  });

  for (const [index, month] of changed.entries()) {
    if (!keepGoing()) {
      report.leftForNextPass = changed.length - index;
      break;
    }
    const period = periodOfInvoiceMonth(month);
    const targets = observed.get(month) ?? {};
    let cursor = await ports.cursor.readMonth(period);
    const monthReport: MonthReport = {
      period,
      executionId: '',
      pages: 0,
      rows: 0,
      rounded: 0,
      restarts: 0,
      bytesBilled: 0,
      manifestWritten: false,
      totals: {},
    };
    if (cursor?.done && covers(cursor.targets, targets)) {
      // Acquired, but the pass stopped before the watermarks moved.
      monthReport.executionId = cursor.jobId;
    } else {
      if (cursor === undefined || cursor.done || now() - cursor.startedAtMs > ttl) {
        if (cursor !== undefined && !cursor.done) monthReport.restarts++;
        cursor = newCursor(period, targets);
        await ports.cursor.writeMonth(cursor);
      }
      // Every page read (the pass stopped before the manifest): no page token and pages done.
      while (cursor.pagesDone === 0 || cursor.pageToken !== undefined) {
        if (!cursor.inserted) {
          await ports.bigquery.insertJob(cursor, monthSql(spec.table, month));
          cursor = { ...cursor, inserted: true };
          await ports.cursor.writeMonth(cursor);
        }
        let page: ResultsPage;
        try {
          page = await ports.bigquery.page(cursor, cursor.pageToken, pageRows);
        } catch (error) {
          if (!(error instanceof ResultsGoneError) || monthReport.restarts >= 3) throw error;
          monthReport.restarts++;
          cursor = newCursor(period, targets);
          await ports.cursor.writeMonth(cursor);
          continue;
        }
        const { csv, counts, total } = pageCsv(page.rows, month);
        const root = `${spec.prefix}/${spec.exportName}/data/BILLING_PERIOD=${period}/${cursor.jobId}`;
        await ports.bucket.putText(`${root}/${dataFileName(cursor.pagesDone)}`, csv, 'text/csv');
        monthReport.pages++;
        monthReport.rows += counts.rows;
        monthReport.rounded += counts.rounded;
        addTotals(monthReport.totals, total);
        cursor = {
          ...cursor,
          pagesDone: cursor.pagesDone + 1,
          rows: cursor.rows + counts.rows,
          bytesBilled: page.bytesBilled ?? cursor.bytesBilled,
        };
        if (page.pageToken === undefined) delete cursor.pageToken;
        else cursor.pageToken = page.pageToken;
        await ports.cursor.writeMonth(cursor);
        if (page.pageToken === undefined) break;
      }
      const manifest = manifestFor({
        bucket: spec.bucket,
        prefix: spec.prefix,
        exportName: spec.exportName,
        billingPeriod: period,
        executionId: cursor.jobId,
        exportArn: `bigquery://${spec.table}`,
        columns: [...FOCUS_FILE_COLUMNS],
        dataFileNames: Array.from({ length: cursor.pagesDone }, (_, i) => dataFileName(i)),
        manifestInExecutionFolder: true,
      });
      monthReport.manifestWritten = await writeManifestLast(ports.bucket, manifest);
      cursor = { ...cursor, done: true };
      await ports.cursor.writeMonth(cursor);
      monthReport.executionId = cursor.jobId;
      monthReport.bytesBilled = cursor.bytesBilled;
    }
    await ports.cursor.writeWatermarks(
      mergeWatermarks(await ports.cursor.readWatermarks(), cursor.targets, oldestDay),
    );
    report.months.push(monthReport);
  }
  return report;
};
