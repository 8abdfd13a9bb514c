/**
 * What the evidence archive costs per million events, beside the ledger's DynamoDB write cost: the
 * cost events of the local run's sample (seed 42), delivered as Lambda hands SQS records to the cost
 * consumer, archived by the consumers' own code (`archiveObjectsOf`, `archiveObjectBody`) in batches
 * of 10 (the queues' default batch size, and FIFO's maximum) and of larger standard-queue batches.
 * Measured: the gzip bytes per event. Modelled: S3 PUT requests (one object per invocation) and
 * storage for the retention.
 *
 * Then the spool path (`archiveDelivery=spool`, the default): each consumer invocation's records
 * encoded by the consumers' own encoder (`encodeSpoolMessages`), the spool messages gathered by the
 * archiver's own code (`archiveSpoolBatch`) in invocations of up to 1,000 messages or 6 MB. Measured:
 * spool message bytes, SQS request units (64 KB chunks), archiver invocations and objects, the
 * archiver's in-process time. Modelled: SQS, Lambda and S3 prices below.
 *
 *   npx tsx bench/archive-cost.ts [--charges-per-account-month N]   (default 60: the local run's sample)
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { archiveObjectsOf, type ArchiveObject } from '../lambda/core/archive';
import { encodeSpoolMessages } from '../lambda/core/archive-spool';
import { archiveSpoolBatch, type SpoolMessage } from '../lambda/core/archiver';
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

const chargesFlag = process.argv.indexOf('--charges-per-account-month');
const chargesPerAccountMonth = chargesFlag > 0 ? Number(process.argv[chargesFlag + 1]) : 60;
const sample = generateSample({ seed: 42, chargesPerAccountMonth });
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
  `${records.length} cost events of the seed-42 sample (${chargesPerAccountMonth} charges per account and month); prices: PUT $${PUT_PER_THOUSAND}/1,000, Standard $${STANDARD_GB_MONTH}/GB-month, ${RETENTION_MONTHS} months`,
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

/** SQS standard, Lambda (arm64) and the archiver's shape, us-east-1 list prices as known (not fetched). */
const SQS_PER_MILLION_REQUESTS = 0.4;
const SQS_CHUNK_BYTES = 64 * 1024;
const LAMBDA_PER_MILLION_INVOCATIONS = 0.2;
const LAMBDA_ARM_GB_SECOND = 0.0000133334;
const ARCHIVER_MEMORY_GB = 1;
const ARCHIVER_BATCH = 1000;
const ARCHIVER_PAYLOAD_BYTES = 6 * 1024 * 1024;
/** Assumed, not measured here (no network): the parallel S3 PUTs and the receive/delete round trips of one invocation. */
const ARCHIVER_IO_SECONDS = 0.2;

const chunks = (bytes: number) => Math.max(1, Math.ceil(bytes / SQS_CHUNK_BYTES));

/** Consecutive spool messages as the event source mapping hands them over: ≤ 1,000 messages and ≤ 6 MB. */
const archiverBatches = (messages: SpoolMessage[]): SpoolMessage[][] => {
  const batches: SpoolMessage[][] = [];
  let batch: SpoolMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    if (batch.length === ARCHIVER_BATCH || bytes + message.body.length > ARCHIVER_PAYLOAD_BYTES) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(message);
    bytes += message.body.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
};

const spoolCost = async (consumerBatch: number) => {
  const messages: SpoolMessage[] = [];
  let oversize = 0;
  for (let start = 0; start < records.length; start += consumerBatch) {
    const batch = records.slice(start, start + consumerBatch);
    const encoded = encodeSpoolMessages(
      archiveObjectsOf(
        'cost-events',
        batch,
        batch.map(resultOf(true)),
        new Date('2026-12-02T12:00:00Z'),
      ),
    );
    oversize += encoded.oversize.length;
    messages.push(...encoded.messages.map((body) => ({ messageId: randomUUID(), body })));
  }
  const sends = messages.reduce((sum, message) => sum + chunks(message.body.length), 0);
  let receives = 0;
  let deletes = 0;
  let objects = 0;
  let storedBytes = 0;
  let seconds = 0;
  const batches = archiverBatches(messages);
  for (const batch of batches) {
    for (let i = 0; i < batch.length; i += 10) {
      const page = batch.slice(i, i + 10);
      receives += chunks(page.reduce((sum, message) => sum + message.body.length, 0));
      deletes += 1;
    }
    const started = performance.now();
    const outcome = await archiveSpoolBatch(batch, {
      put: (object: ArchiveObject) => {
        storedBytes += archiveObjectBody(object).length;
        return Promise.resolve();
      },
      deadLetter: () => Promise.reject(new Error('no poison in the sample')),
    });
    seconds += (performance.now() - started) / 1000 + ARCHIVER_IO_SECONDS;
    objects += outcome.objects;
  }
  const perMillion = (count: number) => (count / records.length) * 1e6;
  const sqs = perMillion(sends + receives + deletes) * (SQS_PER_MILLION_REQUESTS / 1e6);
  const lambda =
    perMillion(batches.length) * (LAMBDA_PER_MILLION_INVOCATIONS / 1e6) +
    perMillion(seconds * ARCHIVER_MEMORY_GB) * LAMBDA_ARM_GB_SECOND;
  const puts = perMillion(objects + oversize) * (PUT_PER_THOUSAND / 1000);
  const storageMonth = ((storedBytes / records.length) * 1e6 * STANDARD_GB_MONTH) / 1e9;
  return {
    consumerBatch,
    messages: messages.length,
    spoolBytesPerEvent: messages.reduce((sum, m) => sum + m.body.length, 0) / records.length,
    requests: { sends, receives, deletes },
    invocations: batches.length,
    objects,
    oversize,
    storedBytesPerEvent: storedBytes / records.length,
    archiverMsPerInvocation: (seconds / batches.length - ARCHIVER_IO_SECONDS) * 1000,
    dollars: { sqs, lambda, puts, storageMonth, total: sqs + lambda + puts + storageMonth },
  };
};

void (async () => {
  console.log(
    `\nspool: archiver batches of ≤ ${ARCHIVER_BATCH} messages / 6 MB, ${ARCHIVER_MEMORY_GB} GB, measured in-process time + ${ARCHIVER_IO_SECONDS} s assumed I/O; SQS $${SQS_PER_MILLION_REQUESTS}/M requests (64 KB chunks), Lambda arm64 $${LAMBDA_ARM_GB_SECOND}/GB-s + $${LAMBDA_PER_MILLION_INVOCATIONS}/M`,
  );
  console.log(
    'consumer batch | spool messages | spool bytes/event | SQS requests send/receive/delete | archiver invocations | objects (+ oversize) | archiver ms/invocation (in-process) | gzip bytes/event stored | SQS $/M | Lambda $/M | PUT $/M | storage $/M per month | total $/M | vs ledger writes standard / FIFO',
  );
  for (const consumerBatch of [10, 100]) {
    const r = await spoolCost(consumerBatch);
    const share = (ledger: number) => `${((r.dollars.total / ledger) * 100).toFixed(1)} %`;
    console.log(
      `${r.consumerBatch} | ${r.messages} | ${r.spoolBytesPerEvent.toFixed(0)} | ${r.requests.sends}/${r.requests.receives}/${r.requests.deletes} | ${r.invocations} | ${r.objects} (+ ${r.oversize}) | ${r.archiverMsPerInvocation.toFixed(0)} | ${r.storedBytesPerEvent.toFixed(0)} | ${dollars(r.dollars.sqs)} | ${dollars(r.dollars.lambda)} | ${dollars(r.dollars.puts)} | ${dollars(r.dollars.storageMonth)} | ${dollars(r.dollars.total)} | ${share(LEDGER_WRITE_PER_MILLION.standard)} / ${r.consumerBatch <= 10 ? share(LEDGER_WRITE_PER_MILLION.fifo) : 'n/a (FIFO batches ≤ 10)'}`,
    );
  }
})();
