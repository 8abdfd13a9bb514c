/**
 * One SQS batch of the export-deliveries queue: each record is an S3 event notification (raw, or in
 * the SNS envelope per the delivery mode) reporting manifests. A record whose notification or manifest
 * is invalid goes to the DLQ with its reason; a transient error fails only that record.
 */
import type { BatchOutcome } from '../batch';
import { decodeRecord, type DeliveryMode } from '../envelope';
import type { Outcome } from '../outcomes';
import { parseRecords, runParsedBatch } from '../parsed-batch';
import type { DeadLetterPort, SqsRecordInput } from '../ports';
import { planDelivery, type DeliveryOutcome, type PlanDeliveryOptions } from './plan-delivery';
import { objectsCreatedOf, type ObjectCreated } from './s3-event';

export interface ManifestBatchOptions extends PlanDeliveryOptions {
  concurrency: number;
  deliveryMode?: DeliveryMode;
  deadLetters: DeadLetterPort;
}

const OUTCOME: Record<DeliveryOutcome, Outcome> = {
  planned: 'applied',
  're-enqueued': 'applied',
  duplicate: 'duplicate',
};

const MANIFEST_SUFFIX = '-Manifest.json';

export const processManifestBatch = (
  records: readonly SqsRecordInput[],
  options: ManifestBatchOptions,
): Promise<BatchOutcome> =>
  runParsedBatch(
    parseRecords(records, (record) =>
      objectsCreatedOf(decodeRecord(record, options.deliveryMode).message),
    ),
    {
      fifo: false,
      concurrency: options.concurrency,
      deadLetters: options.deadLetters,
      hashOf: (created: ObjectCreated[]) => created.map((object) => object.key).join(' '),
      process: async (created, { messageId }) => {
        const manifests = created.filter((object) => object.key.endsWith(MANIFEST_SUFFIX));
        // The S3 test event, or objects that are not manifests: nothing to plan.
        if (manifests.length === 0) return { messageId, outcome: 'observed' };
        const results = [];
        for (const manifest of manifests) results.push(await planDelivery(manifest, options));
        const applied = results.some((result) => OUTCOME[result.outcome] === 'applied');
        return {
          messageId,
          outcome: applied ? 'applied' : 'duplicate',
          hash: results.map((result) => result.ref.executionId).join(' '),
          reason: results
            .map((result) => `${result.ref.executionId}: ${result.outcome}, ${result.tasks} tasks`)
            .join('; '),
        };
      },
    },
  );
