/**
 * Monthly cost model of the Google Cloud billing acquisition (docs/gcp-acquisition.md):
 * `npx tsx bench/gcp-acquisition-cost.ts [projects] [rowsPerProjectDay] [passesPerDay] [historyMonths]`.
 * Every input is an assumption printed with the result; prices are on-demand list prices.
 */
const [projects = 1000, rowsPerProjectDay = 300, passesPerDay = 4, historyMonths = 12] =
  process.argv.slice(2).map(Number);

const TIB = 2 ** 40;
const PRICE_PER_TIB = 6.25; // BigQuery on-demand, USD per TiB billed (first 1 TiB a month free)
const MIN_BILLED = 10 * 2 ** 20; // 10 MB minimum per query
/** Bytes per row of the columns the month query reads (ids, descriptions, two timestamps, floats, credits). */
const MONTH_QUERY_BYTES_PER_ROW = 260;
/** invoice.month (6 B + 2) and export_time (8 B) per row: the change probe's columns. */
const PROBE_BYTES_PER_ROW = 16;
const LAMBDA_MS_PER_1000_ROWS = 40; // page fetch + CSV + S3 PUT, assumed; measure on deploy
const LAMBDA_GB = 0.5;
const LAMBDA_PRICE_PER_GB_S = 0.0000166667;
const PAGE_ROWS = 10_000;

const rowsPerMonth = projects * rowsPerProjectDay * 30;
const tableRows = rowsPerMonth * historyMonths;
const passes = passesPerDay * 30;
// Every pass: the probe over ~35 days of partitions; the current month changes each pass, the previous
// month on ~5 days (late rows and the invoice close).
const probeBytes = Math.max(MIN_BILLED, rowsPerMonth * (35 / 30) * PROBE_BYTES_PER_ROW);
const monthAcquisitions = passes + 5 * passesPerDay;
// The month query has no partition filter: it reads its columns over the whole table.
const monthBytes = Math.max(MIN_BILLED, tableRows * MONTH_QUERY_BYTES_PER_ROW);
const bytes = passes * probeBytes + monthAcquisitions * monthBytes;
const rowsRead = passes * rowsPerMonth * 0.5 + 5 * passesPerDay * rowsPerMonth; // current month half-full on average
const lambdaSeconds = (rowsRead / 1000) * (LAMBDA_MS_PER_1000_ROWS / 1000);
const requests = passes * 3 + monthAcquisitions * 3 + rowsRead / PAGE_ROWS;

const result = {
  assumptions: {
    projects,
    rowsPerProjectDay,
    passesPerDay,
    historyMonths,
    MONTH_QUERY_BYTES_PER_ROW,
    PROBE_BYTES_PER_ROW,
    LAMBDA_MS_PER_1000_ROWS,
  },
  rowsPerMonth,
  queriesPerMonth: passes + monthAcquisitions,
  bigQueryRequestsPerMonth: Math.round(requests),
  tibBilledPerMonth: +(bytes / TIB).toFixed(3),
  bigQueryUsdPerMonth: +((bytes / TIB) * PRICE_PER_TIB).toFixed(2),
  bigQueryUsdAfterFreeTib: +(Math.max(0, bytes / TIB - 1) * PRICE_PER_TIB).toFixed(2),
  lambdaSecondsPerMonth: Math.round(lambdaSeconds),
  lambdaUsdPerMonth: +(lambdaSeconds * LAMBDA_GB * LAMBDA_PRICE_PER_GB_S).toFixed(2),
  s3PutsPerMonth: Math.round(rowsRead / PAGE_ROWS + monthAcquisitions),
};
console.log(JSON.stringify(result, null, 2));
