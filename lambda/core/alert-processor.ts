import { UNSCOPED } from './archive';
import type { BatchOutcome } from './batch';
import { KeyedSerializer } from './concurrency';
import type { DeliveryMode } from '../../contract/environment';
import { decodeRecord } from './envelope';
import type { AlertEvent } from './events';
import { parseAlertEvent } from './formats';
import { alertKey } from './keys';
import { parseRecords, runParsedBatch } from './parsed-batch';
import type { DeadLetterPort, NotifierPort, SqsRecordInput } from './ports';

export interface AlertProcessorOptions {
  fifo: boolean;
  concurrency: number;
  /** How SNS delivers to the queue (default `raw`). */
  deliveryMode?: DeliveryMode;
  notifier: NotifierPort;
  deadLetters: DeadLetterPort;
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
  const settled = new Set<string>();
  const serializer = new KeyedSerializer();
  return runParsedBatch(
    parseRecords(records, (record) => parseAlert(record, options.deliveryMode)),
    {
      fifo: options.fifo,
      concurrency: options.concurrency,
      deadLetters: options.deadLetters,
      hashOf: ({ key }) => key,
      process: async ({ alert, key }, { messageId }) => {
        const evidence = { tenant: alert.tenant, period: alert.period ?? UNSCOPED };
        if (alert.kind === 'budget-update')
          return { messageId, outcome: 'observed', hash: key, evidence };
        return serializer.run(key, async () => {
          if (settled.has(key)) return { messageId, outcome: 'duplicate', hash: key, evidence };
          const outcome = await options.notifier.notifyOnce(key, alert);
          settled.add(key);
          return { messageId, outcome, hash: key, evidence };
        });
      },
    },
  );
};
