/** Shared helpers of the export tests. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ValidationError } from '../../../lambda/core/errors';
import type { AsyncBuffer } from '../../../lambda/core/exports/readers/parquet';

export const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'focus');

export const fixtureBytes = (name: string): Buffer => readFileSync(path.join(FIXTURES, name));

/** Bytes as a stream of small chunks, the way a network body arrives. */
export async function* chunked(bytes: Uint8Array, size = 7): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size)
    yield bytes.subarray(offset, offset + size);
}

export const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

/** An in-memory AsyncBuffer that records every ranged read. */
export const rangedBuffer = (bytes: Uint8Array): AsyncBuffer & { reads: [number, number][] } => {
  const reads: [number, number][] = [];
  return {
    byteLength: bytes.byteLength,
    reads,
    slice(start: number, end = bytes.byteLength) {
      reads.push([start, end]);
      const copy = bytes.slice(start, end);
      return Promise.resolve(copy.buffer.slice(copy.byteOffset, copy.byteOffset + copy.byteLength));
    },
  };
};

export const validationErrorOf = async (run: () => Promise<unknown>): Promise<ValidationError> => {
  try {
    await run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
};
