/**
 * DynamoDB's 400 KB item limit, and the byte budgets the export store keeps its items to. `itemBytes`
 * follows DynamoDB's documented size rules (attribute names and values in UTF-8; numbers counted at
 * their text length, an upper bound of their stored size), so a budget checked with it holds for the
 * stored item.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** DynamoDB's item size limit: 400 KB, names and values included. */
export const MAX_ITEM_BYTES = 400 * 1024;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

export const valueBytes = (value: AttributeValue): number => {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return value.N.length;
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((n, s) => n + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((n, s) => n + s.length, 0);
  if (value.BS !== undefined) return value.BS.reduce((n, b) => n + b.byteLength, 0);
  // Lists and maps: 3 bytes, plus 1 byte of overhead per element.
  if (value.L !== undefined) return value.L.reduce((n, v) => n + 1 + valueBytes(v), 3);
  if (value.M !== undefined) return 3 + itemBytes(value.M) + Object.keys(value.M).length;
  return 0;
};

/** Stored size of an item (or of the attributes an update adds to one). */
export const itemBytes = (item: Record<string, AttributeValue>): number =>
  Object.entries(item).reduce((n, [name, value]) => n + utf8(name) + valueBytes(value), 0);
