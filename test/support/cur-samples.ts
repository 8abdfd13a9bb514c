/**
 * CUR files in the layouts AWS writes, made from the real anonymized legacy CUR excerpt
 * (test/fixtures/cur/SOURCES.md) because no public CUR 2.0 or legacy CUR Parquet file written by AWS
 * was found (test/fixtures/cur/SOURCES.md). Every cost, id, date and label cell is the real one; only
 * its column name, its place (flat column or map entry) and its physical type change:
 * - CUR 2.0 CSV.gz (Data Exports): snake_case names of AWS's CUR 2.0 table dictionary, `product`,
 *   `resource_tags`, `cost_category` and `discount` as JSON text, `split_line_item_*` columns;
 * - CUR 2.0 Parquet: the same columns, costs DOUBLE, dates INT96 (as Spark writes them), the four
 *   map columns MAP<STRING, STRING>;
 * - legacy CUR Parquet (Athena integration): the legacy columns under their Athena snake_case names,
 *   all flat (`product_product_name`, `resource_tags_user_*`), dates INT64 milliseconds;
 * - the Athena integration's `cost_and_usage_data_status.parquet` (one `status` column).
 * `npx tsx test/support/cur-samples.ts` rewrites the files; `test/unit/exports/cur-samples.test.ts`
 * checks the committed files are what this module writes.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import { legacyCurTable, snakeCase, toCsv, type CurTable } from './cur-fixture';

type SchemaElement = NonNullable<Parameters<typeof parquetWriteBuffer>[0]['schema']>[number];

export const CUR_SAMPLES_DIR = path.join(__dirname, '..', 'fixtures', 'cur');
export const CUR2_CSV_GZ = 'cur2-2023-11-from-legacy-excerpt.csv.gz';
export const CUR2_PARQUET = 'cur2-2023-11-from-legacy-excerpt.snappy.parquet';
export const LEGACY_PARQUET = 'legacy-cur-athena-2023-11-from-legacy-excerpt.snappy.parquet';
export const DATA_STATUS_PARQUET = 'cost_and_usage_data_status.parquet';

/** Legacy `product/*` columns that CUR 2.0 keeps as flat `product_*` columns; the rest go in `product`. */
const CUR2_FLAT_PRODUCT = new Set([
  'product/feeCode',
  'product/feeDescription',
  'product/fromLocation',
  'product/fromLocationType',
  'product/fromRegionCode',
  'product/location',
  'product/locationType',
  'product/operation',
  'product/productFamily',
  'product/regionCode',
  'product/servicecode',
  'product/sku',
  'product/toLocation',
  'product/toLocationType',
  'product/toRegionCode',
  'product/usagetype',
]);

/** CUR 2.0 columns the legacy excerpt has no cell for (left empty, except where noted). */
const CUR2_ONLY = [
  'bill_payer_account_name',
  'discount_bundled_discount',
  'discount_total_discount',
  'line_item_net_unblended_cost',
  'line_item_net_unblended_rate',
  'line_item_resource_id',
  'line_item_usage_account_name',
];

/** Split cost allocation columns: informational, they re-divide costs already in the rows. */
export const SPLIT_COST_COLUMNS = [
  'split_line_item_net_split_cost',
  'split_line_item_net_unused_cost',
  'split_line_item_public_on_demand_split_cost',
  'split_line_item_public_on_demand_unused_cost',
  'split_line_item_split_cost',
  'split_line_item_unused_cost',
];

export const MAP_COLUMNS = ['cost_category', 'discount', 'product', 'resource_tags'] as const;

const TIMESTAMP = /^(bill_billing_period_(start|end)_date|line_item_usage_(start|end)_date)$/;
const NUMERIC =
  /_(cost|rate|amount|factor|fee|units|quantity|value|commitment|reservations|usage|to_date|for_usage|for_billing_period|per_reservation)$/;

/** The product map key of a legacy product column (`product/ProductName` → `product_name`). */
const productKey = (legacy: string): string => snakeCase(legacy).replace(/^product_/, '');

/** One row of the excerpt as named cells. */
const rowsOf = (table: CurTable): Record<string, string>[] =>
  table.records.map((record) =>
    Object.fromEntries(table.header.map((name, i) => [name, record[i]])),
  );

/** Tags added to Usage rows (the excerpt has none) so that the map columns hold something. */
const tagsOf = (row: Record<string, string>, index: number): Record<string, string> =>
  row['lineItem/LineItemType'] === 'Usage'
    ? { user_team: index % 2 === 0 ? 'payments' : 'search', user_env: 'prod' }
    : {};

/** Split cost cells of a row: set on every fifth Usage row, large enough that adding them would show. */
const splitOf = (row: Record<string, string>, index: number): Record<string, string> =>
  Object.fromEntries(
    SPLIT_COST_COLUMNS.map((name) => [
      name,
      row['lineItem/LineItemType'] === 'Usage' && index % 5 === 0 ? '1000.125' : '',
    ]),
  );

export interface Cur2Row {
  flat: Record<string, string>;
  maps: Record<(typeof MAP_COLUMNS)[number], Record<string, string>>;
}

/** The excerpt's rows as CUR 2.0 rows: flat cells by CUR 2.0 name, and the four maps. */
export const cur2Rows = (table: CurTable = legacyCurTable()): Cur2Row[] =>
  rowsOf(table).map((row, index) => {
    const flat: Record<string, string> = {};
    const product: Record<string, string> = {};
    for (const [name, cell] of Object.entries(row)) {
      if (name.startsWith('product/') && !CUR2_FLAT_PRODUCT.has(name)) {
        if (cell !== '') product[productKey(name)] = cell;
      } else flat[snakeCase(name)] = cell;
    }
    for (const name of CUR2_ONLY) flat[name] = '';
    Object.assign(flat, splitOf(row, index));
    return {
      flat,
      maps: { cost_category: {}, discount: {}, product, resource_tags: tagsOf(row, index) },
    };
  });

export const cur2Columns = (rows: readonly Cur2Row[]): string[] =>
  [...Object.keys(rows[0].flat), ...MAP_COLUMNS].sort();

/** CUR 2.0 CSV as Data Exports writes it: header, then the maps as JSON text, gzipped. */
export const cur2CsvGz = (rows: readonly Cur2Row[] = cur2Rows()): Buffer => {
  const columns = cur2Columns(rows);
  const cell = (row: Cur2Row, name: string): string =>
    (MAP_COLUMNS as readonly string[]).includes(name)
      ? JSON.stringify(row.maps[name as (typeof MAP_COLUMNS)[number]])
      : row.flat[name];
  return gzipSync(
    Buffer.from(toCsv([columns, ...rows.map((row) => columns.map((name) => cell(row, name)))])),
    { level: 9 },
  );
};

/** INT96 as Spark writes it: 8 bytes little-endian nanoseconds of the day, 4 bytes Julian day. */
export const int96Bytes = (iso: string): Uint8Array => {
  const ms = Date.parse(iso);
  const day = Math.floor(ms / 86_400_000);
  const bytes = new Uint8Array(12);
  const view = new DataView(bytes.buffer);
  view.setBigInt64(0, BigInt(ms - day * 86_400_000) * 1_000_000n, true);
  view.setInt32(8, day + 2_440_588, true);
  return bytes;
};

const optional = (name: string, type: SchemaElement['type'], extra: Partial<SchemaElement> = {}) =>
  ({ name, type, repetition_type: 'OPTIONAL', ...extra }) as SchemaElement;

const mapSchema = (name: string): SchemaElement[] => [
  { name, repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'MAP' } as SchemaElement,
  { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 } as SchemaElement,
  {
    name: 'key',
    type: 'BYTE_ARRAY',
    converted_type: 'UTF8',
    repetition_type: 'REQUIRED',
  } as SchemaElement,
  optional('value', 'BYTE_ARRAY', { converted_type: 'UTF8' }),
];

type Timestamps = 'INT96' | 'TIMESTAMP_MILLIS';

/** A flat column's schema element and values: timestamps, doubles or strings, empty cells null. */
const flatColumn = (
  name: string,
  cells: readonly string[],
  timestamps: Timestamps,
): { schema: SchemaElement; column: ColumnSource } => {
  const nullable = <T>(convert: (cell: string) => T) =>
    cells.map((cell) => (cell === '' ? null : convert(cell)));
  if (TIMESTAMP.test(name)) {
    return timestamps === 'INT96'
      ? {
          schema: optional(name, 'FIXED_LEN_BYTE_ARRAY', { type_length: 12 }),
          column: { name, data: nullable(int96Bytes), statistics: false },
        }
      : {
          schema: optional(name, 'INT64', { converted_type: 'TIMESTAMP_MILLIS' }),
          column: { name, data: nullable((cell) => new Date(cell)) },
        };
  }
  if (NUMERIC.test(name) && cells.every((cell) => cell === '' || Number.isFinite(Number(cell)))) {
    return { schema: optional(name, 'DOUBLE'), column: { name, data: nullable(Number) } };
  }
  return {
    schema: optional(name, 'BYTE_ARRAY', { converted_type: 'UTF8' }),
    column: { name, data: nullable((cell) => cell) },
  };
};

/**
 * hyparquet-writer has no INT96 writer: the INT96 columns are written as 12-byte fixed-length byte
 * arrays (the same bytes INT96 has on disk) and their physical type is then set to INT96 in the
 * footer (schema element and column metadata: thrift compact i32 field 1, FIXED_LEN_BYTE_ARRAY 7 → INT96
 * 3). Throws unless exactly the expected number of places changed.
 */
const markInt96 = (buffer: ArrayBuffer, columns: number, rowGroups: number): Uint8Array => {
  const bytes = new Uint8Array(buffer.slice(0));
  const footerLength = new DataView(bytes.buffer).getUint32(bytes.length - 8, true);
  const start = bytes.length - 8 - footerLength;
  let schema = 0;
  let meta = 0;
  for (let i = start; i < bytes.length - 10; i += 1) {
    if (bytes[i] !== 0x15 || bytes[i + 1] !== 0x0e) continue;
    if (bytes[i + 2] === 0x15 && bytes[i + 3] === 0x18) schema += 1;
    else if (bytes[i + 2] === 0x19) meta += 1;
    else continue;
    bytes[i + 1] = 0x06;
  }
  if (schema !== columns || meta !== columns * rowGroups) {
    throw new Error(`INT96 patch found ${schema} schema and ${meta} column places`);
  }
  return bytes;
};

const ROW_GROUP = 80;

const writeParquet = (
  rows: readonly Record<string, string>[],
  names: readonly string[],
  maps: readonly { name: string; data: Record<string, string>[] }[],
  timestamps: Timestamps,
): Uint8Array => {
  const flat = names.map((name) =>
    flatColumn(
      name,
      rows.map((row) => row[name]),
      timestamps,
    ),
  );
  const mapNames = new Set(maps.map((map) => map.name));
  const all = [...names, ...mapNames].sort();
  const schema: SchemaElement[] = [{ name: 'root', num_children: all.length } as SchemaElement];
  const columnData: ColumnSource[] = [];
  for (const name of all) {
    const map = maps.find((candidate) => candidate.name === name);
    if (map) {
      schema.push(...mapSchema(name));
      columnData.push({ name, data: map.data, statistics: false });
    } else {
      const column = flat[names.indexOf(name)];
      schema.push(column.schema);
      columnData.push(column.column);
    }
  }
  const buffer = parquetWriteBuffer({
    columnData,
    schema,
    rowGroupSize: ROW_GROUP,
    createdBy: 'billing-dedup test/support/cur-samples.ts',
  });
  const int96 = flat.filter((column) => column.schema.type === 'FIXED_LEN_BYTE_ARRAY').length;
  return int96 === 0
    ? new Uint8Array(buffer)
    : markInt96(buffer, int96, Math.ceil(rows.length / ROW_GROUP));
};

/** CUR 2.0 Parquet as Data Exports writes it (Spark): DOUBLE costs, INT96 dates, MAP columns. */
export const cur2Parquet = (rows: readonly Cur2Row[] = cur2Rows()): Uint8Array =>
  writeParquet(
    rows.map((row) => row.flat),
    Object.keys(rows[0].flat),
    MAP_COLUMNS.map((name) => ({ name, data: rows.map((row) => row.maps[name]) })),
    'INT96',
  );

/** The legacy CUR's Athena Parquet: every legacy column flat under its snake_case name. */
export const legacyAthenaParquet = (table: CurTable = legacyCurTable()): Uint8Array => {
  const rows = rowsOf(table).map((row, index) => {
    const cells: Record<string, string> = {};
    for (const [name, cell] of Object.entries(row)) cells[snakeCase(name)] = cell;
    const tags = tagsOf(row, index);
    cells.resource_tags_user_team = tags.user_team ?? '';
    cells.resource_tags_user_env = tags.user_env ?? '';
    return cells;
  });
  return writeParquet(rows, Object.keys(rows[0]), [], 'TIMESTAMP_MILLIS');
};

/** The Athena integration's data-status object: one row, one `status` column. */
export const dataStatusParquet = (status: 'READY' | 'UPDATING'): Uint8Array =>
  new Uint8Array(
    parquetWriteBuffer({
      columnData: [{ name: 'status', data: [status], type: 'STRING' }],
      createdBy: 'billing-dedup test/support/cur-samples.ts',
    }),
  );

export const CUR_SAMPLE_FILES: Readonly<Record<string, () => Uint8Array>> = {
  [CUR2_CSV_GZ]: () => cur2CsvGz(),
  [CUR2_PARQUET]: () => cur2Parquet(),
  [LEGACY_PARQUET]: () => legacyAthenaParquet(),
  [DATA_STATUS_PARQUET]: () => dataStatusParquet('READY'),
};

if (require.main === module) {
  for (const [name, write] of Object.entries(CUR_SAMPLE_FILES)) {
    writeFileSync(path.join(CUR_SAMPLES_DIR, name), write());
    console.log(`wrote test/fixtures/cur/${name}`);
  }
}
