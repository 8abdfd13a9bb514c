/**
 * The sample's export files, written at run time into a folder of the run: CSV (a `NULL` cell for an
 * absent value, a malformed row a record with one cell missing), CSV.gz, and Parquet with BilledCost as
 * DECIMAL(38, 15) (exact, as a warehouse types it; a NULL-cost row a null).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Big from 'big.js';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { SampleExportDelivery, SampleExportRow } from '../scenarios/sample';
import { curExportBytes } from './cur-files';
import type { ExportDelivery } from './delivery';
import { focusParquetSchema } from './parquet-schema';

export const SAMPLE_EXPORT_COLUMNS = [
  'BilledCost',
  'BillingAccountId',
  'BillingCurrency',
  'BillingPeriodStart',
  'BillingPeriodEnd',
  'ChargeCategory',
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'ListCost',
  'ProviderName',
  'ServiceName',
  'SubAccountId',
] as const;
type Column = (typeof SAMPLE_EXPORT_COLUMNS)[number];

const COST_SCALE = 15;

const monthStart = (period: string, months = 0): Date => {
  const [year, month] = period.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1 + months, 1));
};

const iso = (date: Date): string => date.toISOString().replace('.000Z', 'Z');

/** The row's cells; null for an absent value. */
export const exportCells = (
  row: SampleExportRow,
  period: string,
): Record<Column, string | null> => {
  const start = new Date(monthStart(period).getTime() + row.hour * 3_600_000);
  return {
    BilledCost: row.amount,
    BillingAccountId: '100000000001',
    BillingCurrency: row.currency,
    BillingPeriodStart: iso(monthStart(period)),
    BillingPeriodEnd: iso(monthStart(period, 1)),
    ChargeCategory: 'Usage',
    ChargePeriodStart: iso(start),
    ChargePeriodEnd: iso(new Date(start.getTime() + 3_600_000)),
    ListCost: null,
    ProviderName: 'AWS',
    ServiceName: row.service,
    SubAccountId: row.account,
  };
};

const csvCell = (value: string | null): string =>
  value === null ? 'NULL' : /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;

export const exportCsv = (rows: readonly SampleExportRow[], period: string): string => {
  const lines = rows.map((row) => {
    const cells = SAMPLE_EXPORT_COLUMNS.map((column) => csvCell(exportCells(row, period)[column]));
    return (row.kind === 'malformed' ? cells.slice(0, -1) : cells).join(',');
  });
  return `${[SAMPLE_EXPORT_COLUMNS.join(','), ...lines].join('\n')}\n`;
};

const unscaled = (amount: string | null): bigint | null =>
  amount === null ? null : BigInt(new Big(amount).times(new Big(10).pow(COST_SCALE)).toFixed(0));

export const exportParquet = (rows: readonly SampleExportRow[], period: string): Buffer => {
  if (rows.some((row) => row.kind === 'malformed'))
    throw new Error('a Parquet file has no malformed records: use a null-cost row instead');
  const cells = rows.map((row) => exportCells(row, period));
  const buffer = parquetWriteBuffer({
    columnData: SAMPLE_EXPORT_COLUMNS.map((name) => ({
      name,
      data:
        name === 'BilledCost'
          ? rows.map((row) => unscaled(row.amount))
          : cells.map((row) => row[name]),
      nullable: true,
    })),
    schema: focusParquetSchema(SAMPLE_EXPORT_COLUMNS, COST_SCALE),
  });
  return Buffer.from(buffer);
};

const bytesOf = (name: string, rows: readonly SampleExportRow[], period: string) => {
  if (name.endsWith('.parquet')) return exportParquet(rows, period);
  const csv = exportCsv(rows, period);
  return name.endsWith('.gz') ? gzipSync(csv) : Buffer.from(csv);
};

/** Writes each delivery's files under `directory/<tenant>/<executionId>/` and returns the deliveries. */
export const writeSampleExports = (
  directory: string,
  deliveries: readonly SampleExportDelivery[],
): ExportDelivery[] =>
  deliveries.map((delivery) => {
    const folder = join(directory, delivery.tenant, delivery.executionId);
    mkdirSync(folder, { recursive: true });
    const files = delivery.files.map((file) => {
      const path = join(folder, file.name);
      const bytes = delivery.format
        ? curExportBytes(delivery.format, file.rows, delivery.billingPeriod)
        : bytesOf(file.name, file.rows, delivery.billingPeriod);
      writeFileSync(path, bytes, { flag: 'w' });
      return path;
    });
    return {
      tenant: delivery.tenant,
      billingPeriod: delivery.billingPeriod,
      executionId: delivery.executionId,
      files,
      ...(delivery.note ? { note: delivery.note } : {}),
      ...(delivery.exportName ? { exportName: delivery.exportName } : {}),
    };
  });
