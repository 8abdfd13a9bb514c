import { runBatch, type BatchItem, type BatchOutcome } from './batch';
import { KeyedSerializer } from './concurrency';
import { decodeRecord, type DeliveryMode } from './envelope';
import type { AlertEvent } from './events';
import { parseAlertEvent } from './formats';
import { alertKey } from './keys';
import type { RecordResult } from './outcomes';
import type { DeadLetterPort, NotifierPort, Rejection, SqsRecordInput } from './ports';
import { attempt } from './rejection';

export interface AlertProcessorOptions {
  fifo: boolean;
  concurrency: number;
  /** How SNS delivers to the queue (default `raw`). */
  deliveryMode?: DeliveryMode;
  notifier: NotifierPort;
  deadLetters: DeadLetterPort;
}

interface PreparedAlert extends BatchItem {
  record: SqsRecordInput;
  parsed:
    { ok: true; value: { alert: AlertEvent; key: string } } | { ok: false; rejection: Rejection };
}

export const parseAlert = (
  record: SqsRecordInput,
  mode: DeliveryMode = 'raw',
): { alert: AlertEvent; key: string } => {
  const alert = parseAlertEvent(decodeRecord(record, mode));
  return { alert, key: alertKey(alert) };
};

/**
 * One batch of the alert stream. Periodic budget updates are observed, not notified. Copies of one alert
 * key in the batch run one after the other; once one has notified (or found the alert notified), the
 * others are duplicates without another call.
 */
export const processAlertBatch = async (
  records: readonly SqsRecordInput[],
  options: AlertProcessorOptions,
): Promise<BatchOutcome> => {
  const prepared: PreparedAlert[] = records.map((record) => ({
    messageId: record.messageId,
    groupId: record.attributes?.MessageGroupId,
    record,
    parsed: attempt(() => parseAlert(record, options.deliveryMode)),
  }));
  const settled = new Set<string>();
  const serializer = new KeyedSerializer();

  return runBatch(prepared, {
    fifo: options.fifo,
    concurrency: options.concurrency,
    process: async (item): Promise<RecordResult> => {
      if (!item.parsed.ok) {
        await options.deadLetters.send(item.record, item.parsed.rejection);
        return {
          messageId: item.messageId,
          outcome: 'rejected',
          reason: item.parsed.rejection.reason,
        };
      }
      const { alert, key } = item.parsed.value;
      if (alert.kind === 'budget-update')
        return { messageId: item.messageId, outcome: 'observed', hash: key };
      return serializer.run(key, async () => {
        if (settled.has(key)) return { messageId: item.messageId, outcome: 'duplicate', hash: key };
        const outcome = await options.notifier.notifyOnce(key, alert);
        settled.add(key);
        return { messageId: item.messageId, outcome, hash: key };
      });
    },
  });
};
