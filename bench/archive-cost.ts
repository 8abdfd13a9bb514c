/**
 * What the evidence archive costs per million events, beside the ledger's DynamoDB write cost: the
 * cost events of the local run's sample (seed 42), delivered as Lambda hands SQS records to the cost
 * consumer, archived by the consumers' own code (`archiveObjectsOf`, `archiveObjectBody`) in batches
 * of 10 (the queues' default batch size, and FIFO's maximum) and of larger standard-queue batches.
 * Measured: the gzip bytes per event. Modelled: S3 PUT requests (one object per invocation) and
 * storage for the retention.
 *
 *   npx tsx bench/archive-cost.ts
 */
import { randomUUID } from 'node:crypto';
import { archiveObjectsOf } from '../lambda/core/archive';
import type { RecordResult } from '../lambda/core/outcomes';
import { archiveObjectBody } from '../lambda/adapters/s3-archive';
import { sqsRecord, stringAttributes } from '../local/runtime/lambda-sim';
import { generateSample } from '../local/scenarios/generator';
import { COST_STREAM } from '../contract/streams';

/** S3 Standard, us-east-1 list prices as known (https://aws.amazon.com/s3/pricing/); not fetched: no network here. */
const PUT_PER_THOUSAND = 0.005;
const STANDARD_GB_MONTH = 0.023;
/** Objects under 128 KB are not transitioned by S3 lifecycle (the default minimum since 2024-09): they stay in Standard. */
const RETENTION_MONTHS = 84;
/**
 * The ledger's DynamoDB write cost per million events, measured by `npm run bench` (docs/benchmarks.md,
 * goals table, default workload): 3.119 WCU/event (standard), 1.850 WCU/event (FIFO), at $0.625 per
 * million write request units.
 */
const LEDGER_WRITE_PER_MILLION = { standard: 3.119 * 0.625, fifo: 1.85 * 0.625 };
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:billing-dedup-prod-cost-events.fifo';

const sample = generateSample({ seed: 42 });
const messages = sample.messages.filter((message) => message.topic === COST_STREAM);
const records = messages.map((message, index) =>
  sqsRecord({
    messageId: randomUUID(),
    body: message.message,
    queueArn: QUEUE_ARN,
    fifo: {
      groupId: message.groupId ?? 'acme#200000000011',
      deduplicationId: message.deduplicationId ?? randomUUID(),
      sequenceNumber: String(18_000_000_000_000_000_000n + BigInt(index)),
    },
    messageAttributes: stringAttributes(message.attributes ?? {}),
  }),
);
/** Each event's own tenant and billing period, as the cost consumer reports them: the archive partitions by them. */
const evidenceOf = (body: string): RecordResult['evidence'] => {
  try {
    const event = JSON.parse(body) as { tenant?: unknown; chargePeriodStart?: unknown };
    return typeof event.tenant === 'string' && typeof event.chargePeriodStart === 'string'
      ? { tenant: event.tenant, period: event.chargePeriodStart.slice(0, 7) }
      : undefined;
  } catch {
    return undefined;
  }
};
const resultOf =
  (partitioned: boolean) =>
  (record: (typeof records)[number]): RecordResult => ({
    messageId: record.messageId,
    outcome: 'applied',
    hash: 'c'.repeat(64),
    // Unpartitioned: every event of the batch under one tenant and period, so one object per batch.
    evidence: partitioned ? evidenceOf(record.body) : { tenant: 'acme', period: '2026-11' },
  });

const dollars = (value: number) => `$${value.toFixed(4)}`;
console.log(
  `${records.length} cost events of the seed-42 sample; prices: PUT $${PUT_PER_THOUSAND}/1,000, Standard $${STANDARD_GB_MONTH}/GB-month, ${RETENTION_MONTHS} months`,
);
console.log(
  'partitions | batch | objects | gzip bytes/event | PUT $/M events | storage $/M events/month | storage $/M events, retention | archive (PUT + 1st month) vs ledger writes standard / FIFO',
);
for (const [partitioned, batchSize] of [
  [true, 10],
  [true, 100],
  [true, 1000],
  [false, 10],
] as const) {
  let bytes = 0;
  let objects = 0;
  for (let start = 0; start < records.length; start += batchSize) {
    const batch = records.slice(start, start + batchSize);
    for (const object of archiveObjectsOf(
      'cost-events',
      batch,
      batch.map(resultOf(partitioned)),
      new Date('2026-12-02T12:00:00Z'),
    )) {
      objects++;
      bytes += archiveObjectBody(object).length;
    }
  }
  const perEvent = bytes / records.length;
  const putPerMillion = (objects / records.length) * 1e6 * (PUT_PER_THOUSAND / 1000);
  const storageMonth = ((perEvent * 1e6) / 1e9) * STANDARD_GB_MONTH;
  const archive = putPerMillion + storageMonth;
  const share = (ledger: number) => `${((archive / ledger) * 100).toFixed(1)} %`;
  console.log(
    `${partitioned ? 'tenant/period/day' : 'one per batch'} | ${batchSize} | ${objects} | ${perEvent.toFixed(0)} | ${dollars(putPerMillion)} | ${dollars(storageMonth)} | ${dollars(storageMonth * RETENTION_MONTHS)} | ${share(LEDGER_WRITE_PER_MILLION.standard)} / ${batchSize <= 10 ? share(LEDGER_WRITE_PER_MILLION.fifo) : 'n/a (FIFO batches ≤ 10)'}`,
  );
}
