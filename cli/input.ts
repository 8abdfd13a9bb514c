/**
 * Publish input files → messages with their line numbers. A line that cannot be read is a rejection with
 * its number and reason; it never stops the rest of the file.
 *
 * - JSONL (`.jsonl`, `.ndjson`, `.json`): each non-blank line is either a bare message (published byte for
 *   byte) or the local-run input line `{"topic", "message", "attributes"?, "groupId"?, "deduplicationId"?}`
 *   (recognized when it has `message` and no key outside that set).
 * - CSV (`.csv`): a header row of FOCUS column names; each row becomes a FOCUS JSON object (all values
 *   strings, empty cells kept as "" — the consumer treats them as absent).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import { STREAMS, isStream, type Stream } from './resources';
import { parseJsonExact, stringifyJsonExact } from '../lambda/core/json';

export type InputFormat = 'jsonl' | 'csv';

export interface InputMessage {
  line: number;
  /** From the local-run line shape; undefined for bare messages and CSV rows. */
  stream?: Stream;
  body: string;
  attributes: Record<string, string>;
  groupId?: string;
  deduplicationId?: string;
}

export type InputItem =
  { kind: 'message'; message: InputMessage } | { kind: 'rejected'; line: number; reason: string };

const WRAPPER_KEYS = new Set(['topic', 'message', 'attributes', 'groupId', 'deduplicationId']);

export const formatOf = (path: string, explicit?: string): InputFormat => {
  if (explicit === 'jsonl' || explicit === 'csv') return explicit;
  return /\.csv$/i.test(path) ? 'csv' : 'jsonl';
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const attributeValues = (
  raw: unknown,
): { ok: true; value: Record<string, string> } | { ok: false; reason: string } => {
  if (raw === undefined) return { ok: true, value: {} };
  if (!isRecord(raw)) return { ok: false, reason: '"attributes" must be an object of strings' };
  const value: Record<string, string> = {};
  for (const [name, attribute] of Object.entries(raw)) {
    if (typeof attribute === 'string') value[name] = attribute;
    else if (typeof attribute === 'number' || typeof attribute === 'boolean')
      value[name] = String(attribute);
    else return { ok: false, reason: `attribute "${name}" must be a string` };
  }
  return { ok: true, value };
};

const optionalId = (raw: unknown, name: string): string | undefined | { reason: string } => {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 128)
    return { reason: `"${name}" must be a string of 1 to 128 characters` };
  return raw;
};

/** One JSONL line → item; undefined for a blank line. */
export const parseJsonlLine = (text: string, line: number): InputItem | undefined => {
  const trimmed = text.replace(/\r$/, '');
  if (trimmed.trim() === '') return undefined;
  let value: unknown;
  try {
    value = parseJsonExact(trimmed);
  } catch (error) {
    return { kind: 'rejected', line, reason: `not valid JSON: ${(error as Error).message}` };
  }
  const isWrapper =
    isRecord(value) && 'message' in value && Object.keys(value).every((k) => WRAPPER_KEYS.has(k));
  if (!isWrapper) return { kind: 'message', message: { line, body: trimmed, attributes: {} } };

  const wrapper = value as Record<string, unknown>;
  if (wrapper.topic !== undefined && !isStream(wrapper.topic)) {
    return {
      kind: 'rejected',
      line,
      reason: `unknown topic ${JSON.stringify(wrapper.topic)} (expected ${STREAMS.map((name) => JSON.stringify(name)).join(' or ')})`,
    };
  }
  const attributes = attributeValues(wrapper.attributes);
  if (!attributes.ok) return { kind: 'rejected', line, reason: attributes.reason };
  const groupId = optionalId(wrapper.groupId, 'groupId');
  const deduplicationId = optionalId(wrapper.deduplicationId, 'deduplicationId');
  for (const id of [groupId, deduplicationId])
    if (typeof id === 'object') return { kind: 'rejected', line, reason: id.reason };
  const message = wrapper.message;
  if (message === null || message === undefined)
    return { kind: 'rejected', line, reason: '"message" is empty' };
  return {
    kind: 'message',
    message: {
      line,
      ...(isStream(wrapper.topic) ? { stream: wrapper.topic } : {}),
      body: typeof message === 'string' ? message : stringifyJsonExact(message)!,
      attributes: attributes.value,
      ...(typeof groupId === 'string' ? { groupId } : {}),
      ...(typeof deduplicationId === 'string' ? { deduplicationId } : {}),
    },
  };
};

async function* jsonlItems(path: string): AsyncGenerator<InputItem> {
  const lines = createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    const item = parseJsonlLine(line === 1 ? text.replace(/^\uFEFF/, '') : text, line);
    if (item) yield item;
  }
}

async function* csvItems(path: string): AsyncGenerator<InputItem> {
  const skipped: InputItem[] = [];
  const parser = createReadStream(path).pipe(
    parse({
      bom: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      skip_records_with_error: true,
      on_skip: (error) => {
        if (error)
          skipped.push({
            kind: 'rejected',
            line: Number(error.lines ?? 0),
            reason: `malformed CSV: ${error.message}`,
          });
        return undefined;
      },
    }),
  );
  let header: string[] | undefined;
  for await (const { record, info } of parser as AsyncIterable<{
    record: string[];
    info: { lines: number };
  }>) {
    yield* skipped.splice(0);
    if (!header) {
      header = record.map((name) => name.trim());
      continue;
    }
    if (record.length !== header.length) {
      yield {
        kind: 'rejected',
        line: info.lines,
        reason: `row has ${record.length} fields, the header has ${header.length}`,
      };
      continue;
    }
    const row = Object.fromEntries(header.map((name, index) => [name, record[index]]));
    yield {
      kind: 'message',
      message: { line: info.lines, body: JSON.stringify(row), attributes: {} },
    };
  }
  yield* skipped.splice(0);
}

/** Items of a JSONL or CSV file, in file order. */
export const readInput = (path: string, format: InputFormat): AsyncGenerator<InputItem> =>
  format === 'csv' ? csvItems(path) : jsonlItems(path);

/** Number of records to expect (non-blank lines; minus the header for CSV), for the progress bar's ETA. */
export const countRecords = async (path: string, format: InputFormat): Promise<number> => {
  let count = 0;
  const lines = createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  for await (const text of lines) if (text.trim() !== '') count += 1;
  return format === 'csv' ? Math.max(0, count - 1) : count;
};
