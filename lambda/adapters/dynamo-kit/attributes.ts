/**
 * The one way adapters marshal ledger items. Money stays an exact decimal string: written as an `N`
 * from its string and read back through big.js, never through a JS number. Counts (rows, charges,
 * sequences) are small integers and may be numbers.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import Big from 'big.js';
import { formatDecimal } from '../../core/decimal';

export type Item = Record<string, AttributeValue>;

export const S = (value: string): AttributeValue => ({ S: value });
/** An `N` of an exact decimal string or a small integer count. */
export const N = (value: string | number): AttributeValue => ({ N: String(value) });
export const BOOL = (value: boolean): AttributeValue => ({ BOOL: value });

/** An `N` read back as an exact decimal string ('0' when absent). */
export const decimalOf = (value: AttributeValue | undefined): string =>
  value?.N === undefined ? '0' : formatDecimal(new Big(value.N));

/** A count (`N`) read back as a number (0 when absent). */
export const countOf = (value: AttributeValue | undefined): number => Number(value?.N ?? '0');

/** `{ name: S(value) }` when the value is present, else nothing: for spreading into an item. */
export const optionalS = (name: string, value: string | undefined): Item =>
  value === undefined ? {} : { [name]: S(value) };

/** `{ name: value }` when the item has the string attribute, else nothing: for spreading into a record. */
export const stringAttribute = <K extends string>(
  item: Item | undefined,
  name: K,
): Partial<Record<K, string>> =>
  item?.[name]?.S === undefined ? {} : ({ [name]: item[name].S } as Record<K, string>);
