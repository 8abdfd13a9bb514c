/** The one outcome of a record (docs/consumer-core.md#outcomes). `failed` records are retried; every other outcome is acked. */
export type Outcome =
  | 'applied'
  | 'restated'
  | 'duplicate'
  | 'superseded'
  | 'conflict'
  | 'observed'
  | 'notified'
  | 'rejected'
  | 'failed';

export const OUTCOMES: readonly Outcome[] = [
  'applied',
  'restated',
  'duplicate',
  'superseded',
  'conflict',
  'observed',
  'notified',
  'rejected',
  'failed',
];

export interface RecordResult {
  messageId: string;
  outcome: Outcome;
  /** Content hash or alert key, when the record got that far. */
  hash?: string;
  /** Why: rejection reason, conflict detail or the transient error's name. */
  reason?: string;
}
