/**
 * Deterministic, wide AWS Cost and Usage Report files for the export-formats benchmark: a CUR 2.0
 * Parquet file of 125 columns (4 of them MAP columns: `product`, `resource_tags`, `cost_category`,
 * `discount`) and a legacy CUR CSV.gz of 125 `category/Name` columns, with their ground truth (exact
 * totals per usage account, integer arithmetic on 10-fraction-digit amounts).
 *
 * The column names are AWS's: the legacy ones of the real excerpt in test/fixtures/cur (94 columns),
 * CUR 2.0's the same names in snake_case plus CUR 2.0-only columns (net costs, split cost allocation,
 * discounts), topped up with product attributes to 125. Costs are DOUBLE (as Data Exports writes
 * them), dates INT64 millisecond timestamps (hyparquet-writer does not write INT96), ids text with
 * leading zeros. Rows are made one at a time; Parquet is written one row group at a time.
 */
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { parquetWriteRows, type Writer } from 'hyparquet-writer';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Node entry's fileWriter is not in the types this project's module resolution sees
const { fileWriter } = require('hyparquet-writer') as { fileWriter: (path: string) => Writer };

export const CUR_WIDTH = 125;
const SCALE = 10;
export const MAP_COLUMNS = ['product', 'resource_tags', 'cost_category', 'discount'] as const;

const LEGACY_FIXTURE_HEADER = readFileSync(
  path.join(
    __dirname,
    '..',
    '..',
    'test',
    'fixtures',
    'cur',
    'legacy-cur-anonymized-2023-11-excerpt.csv',
  ),
  'utf8',
)
  .split('\n')[0]
  .trim()
  .split(',');

const snakeCase = (name: string): string =>
  name
    .replace('/', '_')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();

const CUR2_ONLY = [
  'line_item_net_unblended_cost',
  'line_item_net_unblended_rate',
  'line_item_resource_id',
  'bill_payer_account_name',
  'line_item_usage_account_name',
  'discount_total_discount',
  'discount_bundled_discount',
  'pricing_lease_contract_length',
  'pricing_offering_class',
  'pricing_purchase_option',
  'reservation_reservation_a_r_n',
  'reservation_net_effective_cost',
  'reservation_net_recurring_fee_for_usage',
  'reservation_net_unused_recurring_fee',
  'savings_plan_net_savings_plan_effective_cost',
  'savings_plan_end_time',
  'savings_plan_start_time',
  'savings_plan_offering_type',
  'savings_plan_payment_option',
  'savings_plan_purchase_term',
  'savings_plan_region',
  'split_line_item_actual_usage',
  'split_line_item_net_split_cost',
  'split_line_item_net_unused_cost',
  'split_line_item_parent_resource_id',
  'split_line_item_public_on_demand_split_cost',
  'split_line_item_public_on_demand_unused_cost',
  'split_line_item_reserved_usage',
  'split_line_item_split_cost',
  'split_line_item_split_usage',
  'split_line_item_split_usage_ratio',
  'split_line_item_unused_cost',
];

const EXTRA_PRODUCT = [
  'instanceFamily',
  'instanceType',
  'memory',
  'vcpu',
  'tenancy',
  'operatingSystem',
  'licenseModel',
  'preInstalledSw',
  'capacitystatus',
  'networkPerformance',
  'physicalProcessor',
  'processorArchitecture',
  'clockSpeed',
  'ecu',
  'dedicatedEbsThroughput',
  'enhancedNetworkingSupported',
  'intelAvxAvailable',
  'gpu',
  'marketoption',
  'normalizationSizeFactor',
  'currentGeneration',
  'databaseEngine',
  'deploymentOption',
  'storage',
  'maxIopsvolume',
  'maxThroughputvolume',
  'maxVolumeSize',
  'minVolumeSize',
  'cacheEngine',
  'provisioned',
  'requestType',
];

/** CUR 2.0: the fixture's non-product columns in snake_case, CUR 2.0-only ones, 4 maps, product_* to 125. */
export const CUR2_COLUMNS: readonly string[] = (() => {
  const scalar = [
    ...LEGACY_FIXTURE_HEADER.filter((name) => !name.startsWith('product/')).map(snakeCase),
    ...CUR2_ONLY,
  ];
  const products = [
    ...LEGACY_FIXTURE_HEADER.filter((name) => name.startsWith('product/')),
    ...EXTRA_PRODUCT.map((name) => `product/${name}`),
  ].map(snakeCase);
  const names = [...new Set([...scalar, ...MAP_COLUMNS])];
  for (const name of products)
    if (names.length < CUR_WIDTH && !names.includes(name)) names.push(name);
  return names.slice(0, CUR_WIDTH);
})();

/** Legacy CUR CSV: the fixture's 94 columns, topped up with product attributes and tags to 125. */
export const LEGACY_COLUMNS: readonly string[] = (() => {
  const names = [
    ...LEGACY_FIXTURE_HEADER,
    'lineItem/ResourceId',
    ...EXTRA_PRODUCT.map((name) => `product/${name}`),
  ];
  for (let tag = 0; names.length < CUR_WIDTH; tag += 1) names.push(`resourceTags/user:team${tag}`);
  return [...new Set(names)].slice(0, CUR_WIDTH);
})();

type Kind = 'cost' | 'date' | 'map' | 'text';

const kindOf = (snake: string): Kind => {
  if ((MAP_COLUMNS as readonly string[]).includes(snake)) return 'map';
  if (/(_date|_time|start_time|end_time)$/.test(snake)) return 'date';
  if (
    /(cost|rate|amount|fee|value|usage|discount|quantity|factor|units|commitment|ratio)$/.test(
      snake,
    ) &&
    !/(_type|_id|_a_r_n|_name)$/.test(snake)
  )
    return 'cost';
  return 'text';
};

/** mulberry32: a small seeded PRNG, the same numbers on every machine. */
const prng = (seed: number) => () => {
  let t = (seed += 0x6d2b79f5);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const LINE_ITEM_TYPES = ['Usage', 'Usage', 'Usage', 'DiscountedUsage', 'Tax', 'Credit', 'Fee'];
const PRODUCTS = [
  'AmazonEC2',
  'AmazonS3',
  'AmazonRDS',
  'AWSLambda',
  'AmazonCloudWatch',
  'AWSCloudTrail',
];

export interface CurSpec {
  rows: number;
  seed?: number;
  accounts?: number;
}

export interface CurTruth {
  rows: number;
  /** usage account → exact total (text). */
  totals: Record<string, string>;
}

/** One generated row: text cells by CUR 2.0 snake_case name, costs as 10-fraction-digit text, maps as objects. */
export type CurRow = Record<string, string | Record<string, string> | null>;

const decimal = (unscaled: bigint): string => {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(SCALE + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -SCALE)}.${digits.slice(-SCALE)}`;
};

/**
 * `truth` gets each account's exact sum of what the mapping books: the net unblended cost where the
 * row has one and the file has that column (`netColumn`), else the unblended cost.
 */
export function* curRows(
  spec: CurSpec,
  truth?: Map<string, bigint>,
  netColumn = true,
): Generator<CurRow> {
  const random = prng(spec.seed ?? 25);
  const accounts = Array.from({ length: spec.accounts ?? 50 }, (_, index) =>
    String(index * 7919 + 42).padStart(12, '0'),
  );
  const pool = (name: string, size: number) =>
    Array.from({ length: size }, (_, index) => `${name}-${(index * 2654435761) % 1_000_003}`);
  const pools = new Map(CUR2_COLUMNS.map((name) => [name, pool(name, 16)]));
  for (let row = 0; row < spec.rows; row += 1) {
    const account = accounts[Math.floor(random() * accounts.length)];
    const unblended = BigInt(Math.floor(random() * 5e9) - 5e8);
    const net = random() < 0.5 ? null : unblended - BigInt(Math.floor(random() * 1e7));
    truth?.set(account, (truth.get(account) ?? 0n) + ((netColumn ? net : null) ?? unblended));
    const day = 1 + Math.floor(random() * 30);
    const start = `2026-11-${String(day).padStart(2, '0')}T00:00:00.000Z`;
    const cells: CurRow = {};
    for (const name of CUR2_COLUMNS) {
      const kind = kindOf(name);
      if (kind === 'cost') cells[name] = decimal(BigInt(Math.floor(random() * 1e9)));
      else if (kind === 'date') cells[name] = start;
      else if (kind === 'map') cells[name] = {};
      else cells[name] = pools.get(name)![Math.floor(random() * 16)];
    }
    Object.assign(cells, {
      identity_line_item_id: `${row.toString(36).padStart(8, '0')}${Math.floor(random() * 1e12).toString(36)}`,
      bill_payer_account_id: '000000000042',
      line_item_usage_account_id: account,
      bill_billing_period_start_date: '2026-11-01T00:00:00.000Z',
      bill_billing_period_end_date: '2026-12-01T00:00:00.000Z',
      line_item_usage_start_date: start,
      line_item_currency_code: 'USD',
      line_item_line_item_type: LINE_ITEM_TYPES[row % LINE_ITEM_TYPES.length],
      line_item_product_code: PRODUCTS[row % PRODUCTS.length],
      line_item_resource_id: `arn:aws:ec2:eu-west-1:${account}:instance/i-${(row >> 3).toString(16).padStart(17, '0')}`,
      line_item_unblended_cost: decimal(unblended),
      line_item_net_unblended_cost: net === null ? null : decimal(net),
      product: {
        product_name: PRODUCTS[row % PRODUCTS.length],
        region: 'eu-west-1',
        instance_type: `m5.${['large', 'xlarge', '2xlarge'][row % 3]}`,
        operating_system: 'Linux',
        tenancy: 'Shared',
        usagetype: `EUW1-BoxUsage:m5.${['large', 'xlarge'][row % 2]}`,
        servicecode: PRODUCTS[row % PRODUCTS.length],
        sku: `SKU${row % 997}`,
      },
      resource_tags:
        row % 3 === 0 ? {} : { user_team: `team-${row % 17}`, user_env: row % 2 ? 'prod' : 'dev' },
      cost_category: { project: `project-${row % 11}` },
      discount: row % 5 === 0 ? { bundled_discount: decimal(BigInt(-(row % 1000))) } : {},
    });
    yield cells;
  }
}

const truthOf = (rows: number, sums: Map<string, bigint>): CurTruth => ({
  rows,
  totals: Object.fromEntries([...sums].map(([account, sum]) => [account, decimal(sum)])),
});

/** The ground truth of a file already written (`legacy`: without the net cost column), without writing. */
export const curTruthOf = (spec: CurSpec, legacy: boolean): CurTruth => {
  const sums = new Map<string, bigint>();
  const netColumn = !legacy || LEGACY_COLUMNS.includes('lineItem/NetUnblendedCost');
  for (const row of curRows(spec, sums, netColumn)) void row;
  return truthOf(spec.rows, sums);
};

const parquetSchema = () => {
  const elements: Record<string, unknown>[] = [{ name: 'root', num_children: CUR2_COLUMNS.length }];
  for (const name of CUR2_COLUMNS) {
    const kind = kindOf(name);
    if (kind === 'map') {
      elements.push(
        { name, repetition_type: 'OPTIONAL', converted_type: 'MAP', num_children: 1 },
        { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 },
        { name: 'key', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
        { name: 'value', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      );
    } else if (kind === 'cost') {
      elements.push({ name, type: 'DOUBLE', repetition_type: 'OPTIONAL' });
    } else if (kind === 'date') {
      elements.push({
        name,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        repetition_type: 'OPTIONAL',
      });
    } else {
      elements.push({
        name,
        type: 'BYTE_ARRAY',
        converted_type: 'UTF8',
        repetition_type: 'OPTIONAL',
      });
    }
  }
  return elements;
};

/** Writes a CUR 2.0 Parquet file (`rowGroupSize` rows per row group); returns its ground truth. */
export const writeCur2Parquet = async (
  file: string,
  spec: CurSpec,
  options: { rowGroupSize: number },
): Promise<CurTruth> => {
  const sums = new Map<string, bigint>();
  const kinds = new Map(CUR2_COLUMNS.map((name) => [name, kindOf(name)]));
  function* rows(): Generator<Record<string, unknown>> {
    for (const row of curRows(spec, sums)) {
      const out: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(row)) {
        const kind = kinds.get(name);
        out[name] =
          value === null
            ? null
            : kind === 'cost'
              ? Number(value)
              : kind === 'date'
                ? new Date(value as string)
                : value;
      }
      yield out;
    }
  }
  await parquetWriteRows({
    writer: fileWriter(file),
    rows: rows(),
    columns: CUR2_COLUMNS.map((name) => ({ name, nullable: true })),
    schema: parquetSchema() as never,
    rowGroupSize: options.rowGroupSize,
  });
  return truthOf(spec.rows, sums);
};

const csvCell = (value: string): string =>
  /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;

/** Writes a legacy CUR CSV.gz (`category/Name` columns, product and tags flattened); returns its truth. */
export const writeLegacyCurCsvGz = async (file: string, spec: CurSpec): Promise<CurTruth> => {
  const sums = new Map<string, bigint>();
  const source = LEGACY_COLUMNS.map((name) => {
    const snake = snakeCase(name);
    if (name.startsWith('product/')) return { map: 'product', key: snake.slice('product_'.length) };
    if (name.startsWith('resourceTags/'))
      return { map: 'resource_tags', key: `user_${name.split(':')[1]}` };
    return { column: snake };
  });
  function* lines(): Generator<string> {
    yield `${LEGACY_COLUMNS.join(',')}\n`;
    for (const row of curRows(spec, sums, LEGACY_COLUMNS.includes('lineItem/NetUnblendedCost'))) {
      const cells = source.map((from) => {
        const value =
          'column' in from
            ? row[from.column!]
            : (row[from.map] as Record<string, string> | null)?.[from.key];
        return typeof value === 'string' ? csvCell(value) : '';
      });
      yield `${cells.join(',')}\n`;
    }
  }
  await pipeline(Readable.from(lines()), createGzip(), createWriteStream(file));
  return truthOf(spec.rows, sums);
};
