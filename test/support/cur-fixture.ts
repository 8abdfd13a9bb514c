/**
 * The real anonymized legacy CUR excerpt (test/fixtures/cur/SOURCES.md), parsed independently of the
 * readers under test, and ways to restate it or rename it to CUR 2.0's snake_case columns.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Big from 'big.js';

export const LEGACY_CUR_FIXTURE = readFileSync(
  path.join(__dirname, '..', 'fixtures', 'cur', 'legacy-cur-anonymized-2023-11-excerpt.csv'),
  'utf8',
);

/** Its one usage account and billing period. */
export const FIXTURE_ACCOUNT = '123412340534';
export const FIXTURE_PERIOD = '2023-11';

/** Minimal RFC 4180 parse: records of cells. */
export const parseCsv = (text: string): string[][] => {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') [cell, i] = [cell + '"', i + 1];
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') [record, cell] = [[...record, cell], ''];
    else if (c === '\n') {
      records.push([...record, cell]);
      [record, cell] = [[], ''];
    } else if (c !== '\r') cell += c;
  }
  if (cell !== '' || record.length > 0) records.push([...record, cell]);
  return records;
};

export const toCsv = (records: readonly (readonly string[])[]): string =>
  `${records
    .map((record) =>
      record
        .map((cell) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell))
        .join(','),
    )
    .join('\n')}\n`;

/** AWS's snake_case name of a legacy column (`lineItem/UnblendedCost` → `line_item_unblended_cost`). */
export const snakeCase = (name: string): string =>
  name
    .replace('/', '_')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();

export const exactSum = (cells: readonly string[]): string =>
  cells.reduce((sum, cell) => sum.plus(new Big(cell)), new Big(0)).toFixed();

export interface CurTable {
  header: string[];
  records: string[][];
}

export const legacyCurTable = (): CurTable => {
  const [header, ...records] = parseCsv(LEGACY_CUR_FIXTURE);
  return { header, records };
};

export const cellsOf = (table: CurTable, column: string): string[] => {
  const at = table.header.indexOf(column);
  if (at < 0) throw new Error(`no column ${column}`);
  return table.records.map((record) => record[at]);
};
