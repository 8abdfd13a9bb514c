/**
 * Micro-benchmark of the key path alone, single thread (= one core): SQS record → decodeRecord →
 * parseCostEvent (detect format + normalize) → costContentHash (RFC 8785 canonical form + SHA-256),
 * next to raw `crypto` SHA-256 of the same canonical bytes as the physical reference.
 */
import { createHash } from 'node:crypto';
import { decodeRecord } from '../../lambda/core/envelope';
import { parseCostEvent } from '../../lambda/core/formats';
import { canonicalCostForm, costContentHash } from '../../lambda/core/keys';
import type { Workload } from './workload';

export interface KeyPathResult {
  records: number;
  repetitions: number;
  keyPathEventsPerSecond: number;
  sha256EventsPerSecond: number;
  /** Mean canonical form size, bytes. */
  canonicalBytes: number;
  /** Cumulative stages, events/s: decode (JSON + SNS envelope), + parse/normalize, + RFC 8785. */
  stages: { decode: number; parse: number; canonicalize: number };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const rate = (count: number, run: () => void): number => {
  const started = process.hrtime.bigint();
  run();
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
};

export const measureKeyPath = (
  workload: Workload,
  repetitions = 7,
  minRecords = 20_000,
): KeyPathResult => {
  const bodies = workload.deliveries.filter((d) => d.kind !== 'poison').map((d) => d.body);
  const records = Array.from({ length: Math.max(minRecords, bodies.length) }, (_, i) => ({
    messageId: `m${i}`,
    body: bodies[i % bodies.length],
    messageAttributes: {},
  }));
  const canonical = records.map((record) =>
    Buffer.from(canonicalCostForm(parseCostEvent(decodeRecord(record)).event), 'utf8'),
  );
  let sink = 0;
  const keyPath = () => {
    for (const record of records)
      sink ^= costContentHash(parseCostEvent(decodeRecord(record)).event).charCodeAt(0);
  };
  const sha = () => {
    for (const bytes of canonical)
      sink ^= createHash('sha256').update(bytes).digest('hex').charCodeAt(0);
  };
  const decode = () => {
    for (const record of records) sink ^= decodeRecord(record).snsWrapped ? 1 : 0;
  };
  const parse = () => {
    for (const record of records) sink ^= parseCostEvent(decodeRecord(record)).event.amount.length;
  };
  const canonicalize = () => {
    for (const record of records)
      sink ^= canonicalCostForm(parseCostEvent(decodeRecord(record)).event).length;
  };
  const runs = { keyPath, sha, decode, parse, canonicalize };
  const rates: Record<keyof typeof runs, number[]> = {
    keyPath: [],
    sha: [],
    decode: [],
    parse: [],
    canonicalize: [],
  };
  for (const run of Object.values(runs)) run();
  for (let i = 0; i < repetitions; i++)
    for (const [name, run] of Object.entries(runs) as [keyof typeof runs, () => void][])
      rates[name].push(rate(records.length, run));
  const keyRates = rates.keyPath;
  const shaRates = rates.sha;
  if (sink === -1) console.log(sink);
  return {
    records: records.length,
    repetitions,
    keyPathEventsPerSecond: median(keyRates),
    sha256EventsPerSecond: median(shaRates),
    canonicalBytes: canonical.reduce((n, b) => n + b.length, 0) / canonical.length,
    stages: {
      decode: median(rates.decode),
      parse: median(rates.parse),
      canonicalize: median(rates.canonicalize),
    },
  };
};

export { median };
